#include "sim_workload_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "exit_codes.hpp"

namespace numaplace_cli {

namespace {

namespace sim = numaplace::sim;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

[[noreturn]] void reject(const std::string& spec, const std::string& why) {
  throw usage_error(fmt::format("--workload '{}': {}; forms: {}", spec, why, workload_spec_forms));
}

// A positive integer no larger than `most`.
std::size_t positive(const std::string& spec, const std::string& field, const std::string& text, std::size_t most) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
    reject(spec, fmt::format("{} must be a positive integer, not '{}'", field, text));
  }
  if (ec == std::errc::result_out_of_range || v > most) {
    reject(spec, fmt::format("{} is {}; at most {}", field, text, most));
  }
  if (v == 0) reject(spec, fmt::format("{} must be positive, not 0", field));
  return static_cast<std::size_t>(v);
}

double positive_seconds(const std::string& spec, const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v)) {
    reject(spec, fmt::format("SECONDS must be a positive number, not '{}'", text));
  }
  if (v <= 0) reject(spec, fmt::format("SECONDS must be positive, not {}", text));
  if (v > 86400) reject(spec, fmt::format("SECONDS is {}; at most 86400 (a simulated day)", text));
  return v;
}

void check_tasks(const std::string& spec, std::size_t tasks) {
  if (tasks > max_sim_tasks) reject(spec, fmt::format("{} tasks; at most {}", tasks, max_sim_tasks));
}

void check_fields(const std::string& spec, const std::vector<std::string>& parts, std::size_t least,
                  std::size_t most) {
  if (parts.size() < least + 1 || parts.size() > most + 1) {
    reject(spec, fmt::format("{} takes {} field{}", parts[0],
                             least == most ? std::to_string(least) : fmt::format("{} to {}", least, most),
                             most == 1 ? "" : "s"));
  }
}

}  // namespace

sim::workload parse_workload_spec(const std::string& spec) {
  const auto parts = split(spec, ':');
  const std::string& kind = parts[0];
  if (kind == "specjbb") {
    check_fields(spec, parts, 2, 3);
    const auto jvms = positive(spec, "JVMS", parts[1], max_sim_tasks);
    const auto warehouses = positive(spec, "WAREHOUSES", parts[2], max_sim_tasks);
    check_tasks(spec, jvms * warehouses);
    const double seconds = parts.size() > 3 ? positive_seconds(spec, parts[3]) : 60.0;
    return sim::workloads::specjbb(jvms, warehouses, seconds);
  }
  if (kind == "numa01" || kind == "numa01_thread_alloc") {
    check_fields(spec, parts, 1, 1);
    // numa01_thread_alloc splits 1536 chunks per process among its threads: one each at least.
    const std::size_t most = kind == "numa01" ? max_sim_tasks / 2 : 1536;
    const auto threads = positive(spec, "THREADS", parts[1], most);
    return kind == "numa01" ? sim::workloads::numa01(threads) : sim::workloads::numa01_thread_alloc(threads);
  }
  if (kind == "numa02") {
    check_fields(spec, parts, 1, 1);
    return sim::workloads::numa02(positive(spec, "THREADS", parts[1], max_sim_tasks));
  }
  if (kind == "make") {
    check_fields(spec, parts, 1, 2);
    const auto parallel = positive(spec, "J", parts[1], max_sim_tasks);
    const auto jobs = parts.size() > 2 ? positive(spec, "JOBS", parts[2], 1000000) : std::size_t{400};
    return sim::workloads::make_j(parallel, static_cast<std::uint32_t>(jobs));
  }
  if (kind == "stream") {
    check_fields(spec, parts, 1, 3);
    const auto threads = positive(spec, "THREADS", parts[1], max_sim_tasks);
    const auto elements =
        parts.size() > 2 ? positive(spec, "ARRAY_SIZE", parts[2], std::size_t{100'000'000'000}) : std::size_t{10'000'000};
    const auto ntimes = parts.size() > 3 ? positive(spec, "NTIMES", parts[3], 1'000'000) : std::size_t{10};
    return sim::workloads::stream(threads, elements, static_cast<unsigned>(ntimes));
  }
  if (kind == "mpi") {
    check_fields(spec, parts, 1, 3);
    const auto ranks = positive(spec, "RANKS", parts[1], max_sim_tasks);
    const auto mib = parts.size() > 2 ? positive(spec, "MIB_PER_RANK", parts[2], std::size_t{1} << 24) : std::size_t{1024};
    const auto sweeps = parts.size() > 3 ? positive(spec, "SWEEPS", parts[3], 1'000'000) : std::size_t{100};
    return sim::workloads::mpi(ranks, static_cast<std::uint32_t>(mib), static_cast<std::uint32_t>(sweeps));
  }
  reject(spec, fmt::format("unknown workload '{}'", kind));
}

std::string describe_workload(const sim::workload& w) {
  std::size_t tasks = 0;
  std::uint64_t jobs = 0;
  for (const auto& p : w.processes) {
    tasks += p.threads.size();
    jobs += p.jobs;
  }
  const std::size_t n = w.processes.size();
  std::string out = fmt::format("{}: {} process{}, {} task{}", w.name, n, n == 1 ? "" : "es", tasks,
                                tasks == 1 ? "" : "s");
  if (jobs > 0) out += fmt::format(" at a time, {} jobs", jobs);
  if (w.report_elapsed) {
    out += fmt::format(", elapsed time (at most {:g} s)", w.seconds);
  } else {
    out += fmt::format(", {:g} s", w.seconds);
  }
  return out;
}

}  // namespace numaplace_cli
