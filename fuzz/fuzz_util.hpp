// What the fuzz targets share: a scratch directory per process for the readers that take a path,
// and writing one input into it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace grain_fuzz {

// <tmp>/grain-fuzz-<pid>/, made on first use and removed at exit, where <tmp> is $TMPDIR, else
// /dev/shm (memory: the targets write a file per input), else /tmp. One per process: libFuzzer's
// -jobs and -fork run several processes at once.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* env = std::getenv("TMPDIR");
    const std::string tmp = env && *env ? env : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string d = tmp + "/grain-fuzz-" + std::to_string(::getpid());
    if (std::system(("mkdir -p '" + d + "'").c_str()) != 0) std::abort();
    static const std::string to_remove = d;
    std::atexit([] { (void)std::system(("rm -rf '" + to_remove + "'").c_str()); });
    return d;
  }();
  return dir;
}

// Writes `n` bytes to `path` (replacing it); aborts when it cannot, which is no finding of the
// reader but would make every run meaningless.
inline void write_file(const std::string& path, const void* data, std::size_t n) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (n && std::fwrite(data, 1, n, f) != n) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

}  // namespace grain_fuzz
