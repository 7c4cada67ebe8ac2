// grain: the command-line tool. `grain --help` lists the commands, `grain <command> --help` each
// command's options with their defaults and ranges.
//
// Exit status: 0 on success, 1 when the work fails (a bad input file, a failed check), 2 on a
// usage error (an unknown command or option, a missing or out-of-range value).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "grain/core/config.hpp"
#include "grain/core/progress.hpp"

namespace grain::cli {

namespace {
std::function<int()> g_action;
bool g_quiet = false;
char** g_argv = nullptr;

// Levenshtein distance: how far a mistyped name is from a known one.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest of `names` to `word`, when close enough to be a typo ("" otherwise).
std::string closest(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best;
}

// The deepest command the line selected.
const CLI::App* selected(const CLI::App& app) {
  const CLI::App* cur = &app;
  for (;;) {
    const auto subs = cur->get_subcommands();
    if (subs.empty()) return cur;
    cur = subs.front();
  }
}

std::string command_path(const CLI::App* cmd) {
  std::string path;
  for (const CLI::App* c = cmd; c; c = c->get_parent()) path = c->get_name() + (path.empty() ? "" : " ") + path;
  return path;
}

// Arguments no option or command took: a usage error naming the first, with the closest known
// option or command when there is one.
void reject_extras(const CLI::App& app) {
  const CLI::App* cmd = selected(app);
  const std::vector<std::string> extras = cmd->remaining();
  if (extras.empty()) return;
  const std::string& word = extras.front();
  std::vector<std::string> names;
  const bool is_option = word.size() > 1 && word[0] == '-';
  if (is_option) {
    for (const CLI::Option* o : cmd->get_options())
      for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  } else {
    for (const CLI::App* s : cmd->get_subcommands({})) names.push_back(s->get_name());
  }
  const std::string name = is_option ? word.substr(0, word.find('=')) : word;
  const std::string hint = closest(name, names);
  std::string what;
  if (is_option)
    what = "unknown option '" + name + "'";
  else if (cmd->get_subcommands({}).empty())
    what = "unexpected argument '" + word + "'";
  else
    what = "unknown command '" + word + "'";
  throw CLI::ExtrasError(what + (hint.empty() ? "" : "; did you mean '" + hint + "'?"),
                         CLI::ExitCodes::ExtrasError);
}

}  // namespace

void set_action(std::function<int()> action) { g_action = std::move(action); }
bool quiet() { return g_quiet; }
char** program_argv() { return g_argv; }

void add_quiet_flag(CLI::App* cmd, const std::string& also) {
  cmd->add_flag("--quiet", g_quiet, "no progress line on standard error" + (also.empty() ? "" : "; " + also));
}

int main_entry(int argc, char** argv, bool run_action) {
  // A fresh line starts from no action and no --quiet: main_entry may parse several lines in one
  // process (the fuzz target does).
  g_action = nullptr;
  g_quiet = false;
  g_argv = argv;
  CLI::App app("grain " GRAIN_VERSION_STRING
               ": performance-portable tensor kernels (contractions, sparse CP-ALS) on CPUs and GPUs",
               "grain");
  app.set_version_flag("--version", "grain " GRAIN_VERSION_STRING);
  app.require_subcommand(1);
  app.allow_extras();
  app.footer("Run 'grain <command> --help' for a command's options. Documentation: docs/cli.md");
  app.option_defaults()->always_capture_default();

  add_cp_commands(app);
  add_bench_commands(app);
  add_tune_command(app);
  add_gcp_command(app);
  add_contract_command(app);
  bool no_bandwidth = false;
  CLI::App* info = app.add_subcommand("info", "version, back ends, GPU, threads, quick copy bandwidth");
  info->add_flag("--no-bandwidth", no_bandwidth, "skip the copy-bandwidth measurement");
  info->callback([&] { set_action([&] { return run_info(!no_bandwidth); }); });
  // `grain help [command...]`: the same text as --help.
  std::vector<std::string> help_topic;
  CLI::App* help = app.add_subcommand("help", "this text, or a command's options: grain help cp-als");
  help->add_option("command", help_topic, "the command to describe");
  help->allow_extras();

  for (CLI::App* sub : app.get_subcommands({})) {
    sub->allow_extras();
    for (CLI::App* subsub : sub->get_subcommands({})) subsub->allow_extras();
  }

  try {
    app.parse(argc, argv);
    if (app.got_subcommand(help)) {
      const CLI::App* topic = &app;
      for (const std::string& word : help_topic) {
        const auto subs = topic->get_subcommands({});
        const auto it = std::find_if(subs.begin(), subs.end(),
                                     [&](const CLI::App* s) { return s->get_name() == word; });
        if (it == subs.end()) throw CLI::ExtrasError("grain help: unknown command '" + word + "'", 109);
        topic = *it;
      }
      // The formatter directly: App::help() would describe the command parsed, `help` itself.
      std::fputs(topic->get_formatter()->make_help(topic, command_path(topic), CLI::AppFormatMode::Normal).c_str(),
                 stdout);
      return 0;
    }
    reject_extras(app);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    // An unknown option or command explains a missing value or command better than CLI11's
    // complaint about the latter: say the former.
    std::string what = e.what();
    try {
      reject_extras(app);
    } catch (const CLI::ExtrasError& extra) {
      what = extra.what();
    }
    const std::string cmd = command_path(selected(app));
    std::fprintf(stderr, "%s: usage error: %s\nRun '%s --help' for the options.\n", cmd.c_str(), what.c_str(),
                 cmd.c_str());
    return 2;
  } catch (const std::exception& e) {  // a runner's validation in a callback
    std::fprintf(stderr, "%s: error: %s\n", command_path(selected(app)).c_str(), e.what());
    return 1;
  }
  if (!run_action) return 0;
  grain::set_progress_enabled(!quiet() && ::isatty(STDERR_FILENO));
  try {
    return g_action ? g_action() : 0;
  } catch (const CLI::ParseError& e) {  // a usage error found when the values are combined
    const std::string cmd = command_path(selected(app));
    std::fprintf(stderr, "%s: usage error: %s\nRun '%s --help' for the options.\n", cmd.c_str(), e.what(),
                 cmd.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", command_path(selected(app)).c_str(), e.what());
    return 1;
  }
}

}  // namespace grain::cli

// The fuzz target (fuzz/fuzz_cli.cpp) compiles this file with GRAIN_CLI_NO_MAIN: libFuzzer
// supplies main there.
#ifndef GRAIN_CLI_NO_MAIN
int main(int argc, char** argv) { return grain::cli::main_entry(argc, argv, true); }
#endif
