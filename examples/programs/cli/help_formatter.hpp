#pragma once
// The CLI's --help layout (and so its man pages, which help2man writes from --help): CLI11's
// own, except that a group of options that all exclude each other (the machine sources: --file,
// --machine, --sysfs, ...) says so once in its heading, "Options (at most one of these):", where
// CLI11 2.1 repeats an "Excludes:" list of the whole group after every option in it. Exclusions
// reaching outside the group (sim's --config, --merge) are still listed per option.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace numaplace_cli {

class help_formatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    if (is_positional || !all_exclude_each_other(opts)) {
      return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
    }
    // make_option_opts below leaves these out of each option's "Excludes:"; help text is written
    // by one thread at a time, so a member set for the length of this call is enough.
    group_ = opts;
    std::string text = CLI::Formatter::make_group(group + " (at most one of these)", is_positional, opts);
    group_.clear();
    return text;
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string text = CLI::Formatter::make_option_opts(opt);
    // CLI11 2.1 writes " Excludes: --a --b" last; write it again without this group's members.
    const std::string label = " " + get_label("Excludes") + ":";
    const auto at = text.find(label);
    if (group_.empty() || at == std::string::npos) return text;
    text.erase(at);
    // By name: CLI11 keeps them in a set of pointers, whose order is the heap's, run to run.
    std::vector<std::string> names;
    for (const CLI::Option* excluded : opt->get_excludes()) {
      if (std::find(group_.begin(), group_.end(), excluded) == group_.end()) names.push_back(excluded->get_name());
    }
    std::sort(names.begin(), names.end());
    std::string others;
    for (const std::string& name : names) others += " " + name;
    return others.empty() ? text : text + label + others;
  }

 private:
  static bool all_exclude_each_other(const std::vector<const CLI::Option*>& opts) {
    if (opts.size() < 2) return false;
    for (const CLI::Option* a : opts) {
      const auto excludes = a->get_excludes();
      for (const CLI::Option* b : opts) {
        const bool excluded = std::any_of(excludes.begin(), excludes.end(), [b](const CLI::Option* e) { return e == b; });
        if (a != b && !excluded) return false;
      }
    }
    return true;
  }

  mutable std::vector<const CLI::Option*> group_;
};

}  // namespace numaplace_cli
