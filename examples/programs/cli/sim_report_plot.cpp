#include "sim_report_plot.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "exit_codes.hpp"

namespace numaplace_cli {

namespace sim = numaplace::sim;

namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_groups_plotted = 8;

bool gnuplot_on_path() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view rest(path);
  while (true) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

// A file name part: letters, digits, '.', '-' and '_' kept, anything else '_'.
std::string file_part(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    out += keep ? c : '_';
  }
  return out;
}

// A gnuplot single-quoted string: a quote inside is doubled.
std::string gp_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class text_file {
 public:
  explicit text_file(const fs::path& p) : path_(p), out_(p) {
    if (!out_) throw std::runtime_error(fmt::format("--plot: cannot write {}", p.string()));
  }
  template <class... Args>
  void print(fmt::format_string<Args...> f, Args&&... args) {
    out_ << fmt::format(f, std::forward<Args>(args)...);
  }
  ~text_file() = default;
  void close() {
    out_.close();
    if (!out_) throw std::runtime_error(fmt::format("--plot: cannot write {}", path_.string()));
  }

 private:
  fs::path path_;
  std::ofstream out_;
};

}  // namespace

void require_gnuplot() {
  if (!gnuplot_on_path()) {
    throw usage_error(
        "--plot renders with gnuplot, which is not installed (Debian: apt-get install gnuplot-nox, "
        "or run scripts/setup)");
  }
}

std::vector<std::string> write_sim_plots(const sim::sweep_report& r, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw std::runtime_error(fmt::format("--plot: cannot create folder {}: {}", dir, ec ? ec.message() : "not a folder"));
  }
  std::vector<std::string> pngs;
  text_file script(fs::path(dir) / "plots.gp");
  script.print("# Written by numaplace sim --plot; run `gnuplot plots.gp` in this folder.\n");
  script.print("set terminal png size 1000,600\nset termoption noenhanced\nset grid ytics\n");
  for (const auto& p : r.presets) {
    for (const auto& e : p.experiments) {
      const std::string base = file_part(p.name + "-" + e.name);
      // Metric per stack (per stack and program when it runs several: sim::programs_of), with
      // error bars.
      {
        const auto programs = sim::programs_of(e);
        const bool split = programs.size() > 1;
        text_file dat(fs::path(dir) / (base + "-stacks.dat"));
        dat.print("# bar index, stack{}, mean, standard deviation of {} per group over runs\n",
                  split ? " and program" : "", e.elapsed ? "elapsed seconds" : "throughput (ops/s)");
        std::size_t bars = 0;
        for (const auto& s : e.stacks) {
          if (!split) {
            const sim::stack_stats st = sim::stats_of(e, s);
            dat.print("{} \"{}\" {:.6f} {:.6f}\n", bars++, s.stack, st.metric.mean, st.metric.stddev);
            continue;
          }
          for (const auto& prog : programs) {
            const sim::stack_stats st = sim::stats_of(e, s, &prog);
            dat.print("{} \"{} / {}\" {:.6f} {:.6f}\n", bars++, s.stack, prog.label, st.metric.mean, st.metric.stddev);
          }
        }
        dat.close();
        const std::string png = base + "-stacks.png";
        script.print(
            "\nreset\nset terminal png size 1000,600\nset termoption noenhanced\nset grid ytics\n"
            "set output {}\nset title {}\nset ylabel {}\nset yrange [0:*]\nset xrange [-0.6:{}.6]\n"
            "set boxwidth 0.6\nset style fill solid 0.5 border -1\nset key off\n"
            "plot {} using 1:3:4:xtic(2) with boxerrorbars lc rgb '#4477aa'\n",
            gp_quoted(png),
            gp_quoted(fmt::format("{} {}: mean and stddev over runs and {}{}", p.name, e.name,
                                  split ? "each program's groups" : "groups",
                                  e.assumptions.empty() ? "" : " (scaled: " + scaled_text(e.assumptions) + ")")),
            gp_quoted(e.elapsed ? "elapsed seconds per group (lower is better)" : "throughput per group (ops/s)"),
            bars == 0 ? 0 : bars - 1, gp_quoted(base + "-stacks.dat"));
        pngs.push_back((fs::path(dir) / png).string());
      }
      // Where each group's tasks and memory were, over time, in the first run of each stack:
      // one heat map per group, time across, nodes up, darker where more of them are.
      std::string ytics;
      for (numaplace::node_index m = 0; m < e.topology.node_count(); ++m) {
        ytics += fmt::format("{}'{}' {}", m == 0 ? "" : ", ", e.topology.id_of(m), m);
      }
      for (const auto& s : e.stacks) {
        if (s.runs.empty() || s.runs.front().groups.empty()) continue;
        const auto& run = s.runs.front();
        const std::size_t groups = std::min(run.groups.size(), max_groups_plotted);
        const auto heat_map = [&](const std::string& name, const char* what, const char* unit, auto&& value) {
          text_file dat(fs::path(dir) / (name + ".dat"));
          dat.print("# run {} (seed {}): per group (gnuplot index): seconds, node (dense index), {}\n",
                    s.run_index.front(), s.run_seed.front(), unit);
          double most = 1;
          for (std::size_t g = 0; g < groups; ++g) {
            dat.print("# group {}\n", run.groups[g].name);
            for (const auto& o : run.groups[g].tasks_over_time) {
              for (std::size_t m = 0; m < o.tasks_per_node.size(); ++m) {
                const double v = value(o, m);
                dat.print("{:.3f} {} {:.6g}\n", o.seconds, m, v);
                most = std::max(most, v);
              }
              dat.print("\n");
            }
            dat.print("\n");
          }
          dat.close();
          const std::string png = name + ".png";
          script.print("\nreset\nset terminal png size 1000,{}\nset termoption noenhanced\nset output {}\n",
                       150 + 220 * groups, gp_quoted(png));
          script.print(
              "set multiplot layout {},1 title {}\nset autoscale xfix\nset ylabel 'node'\nset ytics ({})\nset yrange [-0.5:{}.5]\n"
              "set cbrange [0:{}]\nset cblabel {}\nset palette defined (0 'white', 1 '#4477aa', 2 '#222255')\n",
              groups,
              gp_quoted(fmt::format("{} {} {}, run {}: where each group's {} over time", p.name, e.name, s.stack,
                                    s.run_index.front(), what)),
              ytics, e.topology.node_count() - 1, most, gp_quoted(unit));
          for (std::size_t g = 0; g < groups; ++g) {
            script.print("set title {}\n", gp_quoted(run.groups[g].name));
            if (g + 1 == groups) script.print("set xlabel 'simulated seconds'\n");
            script.print("plot {} index {} using 1:2:3 with image notitle\n", gp_quoted(name + ".dat"), g);
          }
          script.print("unset multiplot\n");
          pngs.push_back((fs::path(dir) / png).string());
        };
        const std::string name = base + "-" + file_part(s.stack);
        heat_map(name + "-occupancy", "tasks are", "tasks",
                 [](const sim::occupancy& o, std::size_t m) { return double(o.tasks_per_node[m]); });
        // Memory as a share of what the group has touched so far, so that a group's maps read alike
        // whatever its size; none where the timeline has no memory (merged version 1 parts).
        const bool memory_known = std::all_of(run.groups.begin(), run.groups.end(), [](const sim::group_result& g) {
          return std::all_of(g.tasks_over_time.begin(), g.tasks_over_time.end(),
                             [](const sim::occupancy& o) { return !o.memory_per_node.empty(); });
        });
        if (!memory_known) continue;
        heat_map(name + "-memory", "memory is", "percent of its memory", [](const sim::occupancy& o, std::size_t m) {
          std::uint64_t total = 0;
          for (const auto chunks : o.memory_per_node) total += chunks;
          return total == 0 || m >= o.memory_per_node.size() ? 0.0 : 100.0 * double(o.memory_per_node[m]) / double(total);
        });
      }
    }
  }
  script.close();
  const std::string command = fmt::format("cd {} && gnuplot plots.gp 1>&2", shell_quoted(dir));
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(
        fmt::format("--plot: gnuplot failed on {}/plots.gp (the data files are there)", dir));
  }
  return pngs;
}

}  // namespace numaplace_cli
