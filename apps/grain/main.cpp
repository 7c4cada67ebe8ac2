// grain: the command-line tool. `grain help` lists the subcommands.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.hpp"
#include "grain/core/error.hpp"

namespace grain::cli {

bool Args::has(const std::string& flag) const {
  for (const auto& a : items)
    if (a == flag) return true;
  return false;
}

std::string Args::value(const std::string& key, const std::string& fallback) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i] == key) {
      if (i + 1 >= items.size()) impl::throw_error("option ", key, " needs a value");
      return items[i + 1];
    }
  }
  return fallback;
}

long long Args::integer(const std::string& key, long long fallback) const {
  const std::string v = value(key, "");
  if (v.empty()) return fallback;
  std::size_t used = 0;
  long long out = 0;
  try {
    out = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size()) impl::throw_error("option ", key, " takes an integer, got '", v, "'");
  return out;
}

void Args::expect_only(const std::vector<std::string>& with_value,
                       const std::vector<std::string>& flags) const {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& a = items[i];
    bool ok = false;
    for (const auto& k : with_value)
      if (a == k) {
        ok = true;
        ++i;
      }
    for (const auto& k : flags) ok = ok || a == k;
    if (!ok) impl::throw_error("unknown argument '", a, "' (see grain help)");
  }
}

}  // namespace grain::cli

namespace {
void usage() {
  std::puts(
      "usage: grain <command> [options]\n"
      "\n"
      "commands:\n"
      "  info [--no-bandwidth]   version, back ends, GPU, threads, quick copy bandwidth\n"
      "  help                    this text");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  const std::string cmd = argv[1];
  grain::cli::Args args;
  for (int i = 2; i < argc; ++i) args.items.emplace_back(argv[i]);
  try {
    if (cmd == "info") {
      args.expect_only({}, {"--no-bandwidth"});
      return grain::cli::run_info(args);
    }
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      usage();
      return 0;
    }
    std::fprintf(stderr, "grain: unknown command '%s'\n", cmd.c_str());
    usage();
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "grain %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
}
