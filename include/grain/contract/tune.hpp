// Tuning: measure every applicable algorithm on this device and record the fastest per shape class
// in the tuning file (tuning.hpp) that Algorithm::Auto reads. `grain tune` is a thin command over
// contract_tune.
//
//   grain::ContractTuneOptions opt;
//   opt.backend = "openmp";
//   opt.quick = true;                                  // the benchmark cases Q1..Q4 only
//   grain::ContractTuneResult r = grain::contract_tune(opt, [](const std::string& line) {
//     std::puts(line.c_str());
//   });
//   std::fputs(grain::contract_tune_summary(r).c_str(), stdout);
//
// Shapes: the benchmark cases (fields, points) = (8, 8), (27, 27), (64, 64), (125, 216), and
// unless `quick` every pair of `fields` x `points`, each at the tuning budget (the larger input
// holds budget_mib MiB). Per kernel, element type and shape the winner is the algorithm of the
// least minimum time over the repetitions: the minimum resists interference from other work on
// the machine, which only ever adds time. Auto's untuned choice is measured against the model
// alone (GRAIN_TUNING_FILE=off while measuring), so an older file cannot steer it; the
// environment is restored afterwards. Entries of other devices and back ends in the file are
// kept; this device and back end's are replaced.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "grain/contract/problem.hpp"

namespace grain {

struct ContractTuneOptions {
  std::string backend;  // serial, openmp, cuda; "": default_backend()
  std::string path;     // the file to write; "": contract_tuning_path(), the one Auto reads
  std::string layout;   // left, right; "": left on cuda (as Kokkos), right on the CPU
  double budget_mib = 0;  // 0: 128 on cuda, 16 on the CPU
  int reps = 0;           // 0: 10 on cuda, 5 on the CPU
  std::vector<ContractKernel> kernels;  // empty: all nine
  std::vector<std::string> dtypes;      // float, double; empty: both
  bool quick = false;                   // the four benchmark cases only
  std::vector<std::int64_t> fields{4, 8, 27, 64, 125}, points{8, 27, 64, 216, 512};
};

struct ContractTuneResult {
  std::string path;     // the file written
  std::string device;   // the device name its entries are keyed by
  std::string backend;  // the back end measured
  std::string auto_path;  // the file Auto reads in this environment ("" when GRAIN_TUNING_FILE is off)
  int entries = 0;        // entries written for this device and back end
  int changed = 0;        // of those, entries whose winner differs from Auto's untuned choice
  bool auto_reads_it = false;  // path == auto_path
};

// Measures and writes the tuning file. `log` receives the account line by line: first the plan
// (device, back end, layout, budget, shape count, file), then one line per measured shape class
// (its winner, and Auto's untuned choice with its time). A grain::Progress counts the shapes
// (shown where the tool enables progress). Raises grain::Error for an unavailable back end, an
// option value out of range (budget_mib or reps negative, a dtype other than float or double, a
// field or point count below 1, an unknown layout), no file to write (path "" with
// GRAIN_TUNING_FILE=off) or a file that cannot be written. An algorithm that fails on a shape is
// left out of that shape with a warning on standard error.
ContractTuneResult contract_tune(const ContractTuneOptions& opt,
                                 const std::function<void(const std::string&)>& log = {});

// The closing lines of `grain tune`: the entries written, how many differ from the untuned Auto,
// and how Auto finds the file. Ends with a newline.
std::string contract_tune_summary(const ContractTuneResult& r);

}  // namespace grain
