// `grain cp-als` and `grain generate`: the work, for the back end and element type asked for
// (their options are in cp_cli.cpp). Compiled as CUDA in CUDA builds.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif

#include "commands.hpp"
#include "stop_signals.hpp"
#include "grain/core/backends.hpp"
#include "grain/cp/memory.hpp"
#include "grain/dist/sparse.hpp"
#include "grain/grain.hpp"

namespace grain::cli {
namespace {

using cp::MttkrpAlgorithm;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Calls f(Exec{}, T{}) for the named back end and element type.
template <class F>
int with_backend_and_dtype(const std::string& backend, const std::string& dtype, F&& f) {
  if (dtype != "float" && dtype != "double")
    impl::throw_error("element type must be float or double, got '", dtype, "'");
  return with_backend(backend.empty() ? default_backend() : backend, [&](auto exec) {
    return dtype == "float" ? f(exec, float{}) : f(exec, double{});
  });
}

// Says, on standard error, when a mode's factor matrix would be large and mostly rows of indices
// no nonzero uses: --compact would then save most of the memory.
template <class T>
void compact_note(const SparseTensor<T>& X, int R) {
  double rows = 0;
  for (index_type d : X.dims()) rows += double(d);
  if (rows * R * sizeof(T) < 64.0 * (1 << 20)) return;  // small either way
  const std::vector<index_type> used = used_indices(X);
  double used_rows = 0;
  for (index_type u : used) used_rows += double(u);
  if (2 * used_rows < rows)
    std::fprintf(stderr, "grain cp-als: note: the nonzeros use %.0f of the %.0f indices of all modes; --compact "
                         "would shrink the factor matrices from %s to %s\n",
                 used_rows, rows, cp::impl::bytes_string(rows * R * sizeof(T)).c_str(),
                 cp::impl::bytes_string(used_rows * R * sizeof(T)).c_str());
}

// The start from --init PREFIX: files of the file's dimensions; compacted, the used rows of them.
template <class T>
cp::Ktensor<T, HostSpace> read_start(const std::string& prefix, const std::vector<index_type>& dims, int R,
                                     const CompactTensor<T>& compacted) {
  cp::Ktensor<T, HostSpace> full = cp::read_ktensor<T>(prefix, dims, R);
  if (compacted.original.empty()) return full;
  cp::Ktensor<T, HostSpace> K(compacted.tensor.dims(), R);
  deep_copy(K.lambda, full.lambda);
  for (int m = 0; m < K.ndims(); ++m)
    for (index_type i = 0; i < K.dim(m); ++i)
      for (int r = 0; r < R; ++r) K.factors[m](i, r) = full.factors[m](compacted.original[m][i], r);
  return K;
}

// What a checkpoint of this run records besides the model: the tensor decomposed and the settings.
template <class T>
cp::CpAlsCheckpoint checkpoint_settings(const SparseTensor<T>& H, const CpAlsCommand& c, const cp::CpAlsOptions& o) {
  cp::CpAlsCheckpoint ck;
  ck.dims = H.dims();
  ck.nnz = H.nnz();
  ck.fingerprint = cp::tensor_fingerprint(H);
  ck.rank = c.rank;
  ck.value_bytes = sizeof(T);
  ck.maxiters = o.maxiters;
  ck.tol = o.tol;
  ck.seed = c.seed;
  ck.mttkrp = c.mttkrp;
  return ck;
}

// --resume: the checkpoint must be of this tensor, rank and element type; the run continues after
// its iteration with its fit history. A run that had converged stays done unless --tol is smaller.
cp::CpAlsCheckpoint resume_from(const std::string& path, cp::CpAlsCheckpoint& ck, cp::CpAlsOptions& o) {
  cp::CpAlsCheckpoint from = cp::read_checkpoint(path);
  cp::check_checkpoint_tensor(from, path, ck.dims, ck.nnz, ck.fingerprint, ck.rank, ck.value_bytes);
  const int k = from.iteration;
  o.iterations_done = k;
  o.fit_done = k > 0 ? from.fits[k - 1] : 0.0;
  if (k > 1 && std::abs(from.fits[k - 1] - from.fits[k - 2]) < o.tol) o.maxiters = std::min(o.maxiters, k);
  ck.fits = from.fits;
  return from;
}

// What rank 0 prints, the other ranks drop.
struct NullFile {
  std::FILE* f = std::fopen("/dev/null", "w");
  ~NullFile() {
    if (f) std::fclose(f);
  }
};

// Across ranks (comm): each rank reads or generates its share of the nonzeros and decomposes it
// with the others; rank 0 prints and writes the results. Options that need the whole tensor on one
// rank are refused there.
template <class Exec, class T>
int cp_als_on(const CpAlsCommand& c, dist::Comm* comm) {
  using Space = typename Exec::memory_space;
  const bool lead = !comm || comm->rank() == 0;
  NullFile sink;
  // With the JSON on standard output, the human-readable lines go to standard error.
  std::FILE* out = !lead ? sink.f : c.json == "-" ? stderr : stdout;
  if (comm) {
    const char* whole = c.compact ? "--compact" : !c.checkpoint.empty() ? "--checkpoint"
                      : !c.resume.empty() ? "--resume" : c.init == "nvecs" ? "--init nvecs" : nullptr;
    if (whole)
      throw dist::AgreedError(std::string(whole) + " is not available across ranks (" + std::to_string(comm->size()) +
                              " ranks): it needs the whole tensor in one process");
  }
  const int R = c.rank;
  cp::CpAlsOptions o;
  o.maxiters = c.maxiters;
  o.tol = c.tol;
  o.mttkrp = cp::parse_mttkrp_algorithm(c.mttkrp);
  o.solve = c.solve == "host" ? cp::DenseSolve::Host : c.solve == "device" ? cp::DenseSolve::Device : cp::DenseSolve::Auto;
  o.nonnegative = c.nonnegative;
  const std::string init = c.init.empty() || c.init == "random" ? "random" : c.init == "nvecs" ? "nvecs" : "file";
  check_json_path(c.json);
  TnsReadOptions ro;
  ro.dims.assign(c.dims.begin(), c.dims.end());
  TnsReadStats st;
  SparseTensor<T> H;
  const auto tr = std::chrono::steady_clock::now();
  if (c.generated)
    H = comm ? dist::generate_sparse_share<T>(*comm, c.gen) : generate_sparse<T>(c.gen);
  else
    H = comm ? dist::read_sparse_share<T>(*comm, c.file, ro, &st) : read_sparse<T>(c.file, ro, &st);
  const long long nnz = comm ? static_cast<long long>(dist::total_nnz(*comm, H)) : static_cast<long long>(H.nnz());
  if (comm) {  // the parts' bytes, and the slowest rank's time
    st.bytes = comm->allreduce_value(st.bytes);
    st.seconds = comm->allreduce_value(seconds_since(tr), dist::ReduceOp::Max);
  }
  const std::string share =
      comm ? ", over " + std::to_string(comm->size()) + " ranks (at most " +
                 std::to_string(comm->allreduce_value<std::int64_t>(H.nnz(), dist::ReduceOp::Max)) + " on one)"
           : "";
  if (c.generated)
    std::fprintf(out, "generated %s: %d-way %s, %lld nonzeros%s in %.3f s\n", generator_kind_name(c.gen.kind),
                 H.ndims(), dims_string(H.dims()).c_str(), nnz, share.c_str(), seconds_since(tr));
  else
    std::fprintf(out, "read %s: %d-way %s, %lld nonzeros%s, %.1f MB in %.3f s (%.0f MB/s)\n", c.file.c_str(),
                 H.ndims(), dims_string(H.dims()).c_str(), nnz, share.c_str(), st.bytes / 1e6, st.seconds, st.MBps());
  const std::vector<index_type> dims = H.dims();  // the file's, also when compacted
  CompactTensor<T> compacted;
  if (c.compact) {
    compacted = compact(H);
    H = compacted.tensor;
    std::fprintf(out, "compact: %s -> %s (the indices the nonzeros use)\n", dims_string(dims).c_str(),
                 dims_string(H.dims()).c_str());
  } else if (!comm) {
    compact_note(H, R);
  }
  if (comm) {
    std::string error;
    try {
      cp::check_cp_als_memory<Exec, T>(H, R, o.mttkrp);
    } catch (const std::exception& e) {
      error = e.what();
    }
    comm->agree(error);
    o.comm = comm;
  } else {
    cp::check_cp_als_memory<Exec, T>(H, R, o.mttkrp);
  }
  auto X = H.template to_space<Space>();
  cp::CpAlsCheckpoint ck, from;
  if (!c.checkpoint.empty() || !c.resume.empty()) ck = checkpoint_settings(H, c, o);
  if (!c.resume.empty()) from = resume_from(c.resume, ck, o);
  // Start k's model: the checkpoint's, the files', or nvecs or random from seed + k.
  const auto start_model = [&](std::uint64_t seed) -> cp::Ktensor<T, Space> {
    if (!c.resume.empty()) return cp::checkpoint_model<T, Space>(from);
    if (init == "file") return read_start<T>(c.init, dims, R, compacted).template to_space<Space>();
    if (init == "random") return cp::random_ktensor<T, Space>(X.dims(), R, seed);
    cp::NvecsOptions no;
    no.seed = seed;
    no.absolute = c.nonnegative;
    const auto t0 = std::chrono::steady_clock::now();
    cp::Ktensor<T, Space> K = cp::nvecs_ktensor<Exec>(X, R, no);
    std::fprintf(out, "nvecs: the leading %d singular vectors of every mode in %.3f s\n", R, seconds_since(t0));
    return K;
  };
  const auto start_name = [&](std::uint64_t seed) {
    if (!c.resume.empty())
      return "resumed after iteration " + std::to_string(o.iterations_done) + " of " + c.resume;
    if (init == "file") return "start from " + c.init;
    return init + " start, seed " + std::to_string(seed);
  };
  // After each iteration: the checkpoint when one is due, and a stop when a signal came.
  int saved = c.checkpoint == c.resume ? o.iterations_done : 0;  // the iteration the --checkpoint file holds
  bool writing = false;
  cp::Ktensor<T, Space> M;  // the model of the start under way
  o.after_iteration = [&](const cp::CpAlsIteration& it) {
    ck.fits.push_back(it.fit);
    const bool stop = g_stop_signal != 0;
    if (!c.checkpoint.empty() && (it.last || stop || it.iteration % c.checkpoint_every == 0)) {
      writing = true;
      ck.iteration = it.iteration;
      cp::checkpoint_set_model(ck, M);
      cp::write_checkpoint(c.checkpoint, ck);
      saved = it.iteration;
      writing = false;
    }
    return !stop;
  };
  StopSignals signals;  // a signal stops the run after the iteration under way
  // The starts share the tensor on the device and the sorted and tiled copies it caches: the first
  // start sorts, the others reuse them.
  cp::CpAlsResult res;
  cp::Ktensor<T, Space> best;
  std::vector<CpAlsRunInfo::Start> starts;
  std::uint64_t best_seed = c.seed;
  for (int k = 0; k < c.starts && !signals.received(); ++k) {
    const std::uint64_t seed = c.seed + static_cast<std::uint64_t>(k);
    const auto t0 = std::chrono::steady_clock::now();
    if (c.starts > 1) std::fprintf(out, "start %d of %d\n", k + 1, c.starts);
    M = start_model(seed);
    std::fprintf(out, "cp-als: rank %d, %s, %s, maxiters %d, tol %g, %s%s\n", R, Exec::name(),
                 std::is_same_v<T, float> ? "float" : "double", o.maxiters, o.tol, start_name(seed).c_str(),
                 c.nonnegative ? ", non-negative" : "");
    if (!c.resume.empty() && o.iterations_done >= o.maxiters)
      std::fprintf(out, "cp-als: the checkpoint's run is complete (%d iterations); nothing to iterate\n",
                   o.iterations_done);
    std::fprintf(out, "%5s %12s %12s %10s %12s\n", "iter", "fit", "change", "seconds", "mttkrp_s");
    cp::CpAlsResult r;
    try {
      r = cp::cp_als<Exec>(
          X, M, o,
          [out](const cp::CpAlsIteration& it) {
            std::fprintf(out, "%5d %12.8f %12.4e %10.4f %12.4f\n", it.iteration, it.fit, it.change, it.seconds,
                         it.mttkrp_seconds);
            std::fflush(out);
          },
          [lead](const std::string& msg) {
            if (lead) std::fprintf(stderr, "grain cp-als: note: %s\n", msg.c_str());
          });
    } catch (const Error& e) {
      // A fault (a NaN or infinity) leaves the checkpoint as it was: the last good model written.
      if (c.checkpoint.empty() || writing) throw;
      if (saved > 0)
        impl::throw_error(e.what(), "; the checkpoint ", c.checkpoint, " keeps iteration ", saved);
      impl::throw_error(e.what(), "; no checkpoint was written before it");
    }
    starts.push_back({seed, r.fit, seconds_since(t0), static_cast<int>(r.iterations.size())});
    if (c.starts > 1)
      std::fprintf(out, "start %d of %d: seed %llu, fit %.8f after %d iterations\n", k + 1, c.starts,
                   static_cast<unsigned long long>(seed), r.fit, starts.back().iterations);
    // A later start must fit better to replace the one kept.
    if (k == 0 || r.fit > res.fit) {
      res = std::move(r);
      best = M;
      best_seed = seed;
    }
  }
  M = best;
  if (c.starts > 1)
    std::fprintf(out, "cp-als: best of %d starts: seed %llu, fit %.8f\n", static_cast<int>(starts.size()),
                 static_cast<unsigned long long>(best_seed), res.fit);
  const int iters = static_cast<int>(res.iterations.size());
  const int per = std::max(iters, 1);
  std::fprintf(out, "cp-als: %d iterations, fit %.8f, %.4f s (%.4f s per iteration), setup %.4f s\n", iters,
               res.fit, res.seconds, res.seconds / per, res.setup_seconds);
  std::fprintf(out, "mttkrp per mode (s per iteration, algorithm):");
  for (int m = 0; m < X.ndims(); ++m)
    std::fprintf(out, " %d: %.4f %s", m + 1, res.mttkrp_seconds_per_mode[m] / per,
                 cp::mttkrp_algorithm_name(res.algorithms[m]));
  std::fprintf(out, "\n");
  if (comm)
    std::fprintf(out, "across %d ranks (%s): %.4f s per iteration in collectives (%.0f%%), %s sent per iteration by rank 0\n",
                 comm->size(), comm->engine(), res.comm_seconds / per, res.seconds > 0 ? 100 * res.comm_seconds / res.seconds : 0.0,
                 cp::impl::bytes_string(res.comm_bytes / per).c_str());
  if (!c.output.empty() && lead) {
    if (c.compact)
      cp::write_ktensor(c.output, M.template to_space<HostSpace>(), compacted.original);
    else
      cp::write_ktensor(c.output, M.template to_space<HostSpace>());
    std::fprintf(out, "wrote %s_lambda.txt and %s_mode1..%d.txt\n", c.output.c_str(), c.output.c_str(),
                 X.ndims());
  }
  if (!c.json.empty() && lead) {
    CpAlsRunInfo run;
    run.ranks = comm ? comm->size() : 1;
    run.comm_engine = comm ? comm->engine() : "self";
    run.file = c.file;
    run.backend = Exec::name();
    run.dtype = std::is_same_v<T, float> ? "float" : "double";
    for (index_type d : dims) run.dims.push_back(static_cast<long long>(d));
    run.nnz = nnz;
    run.rank = R;
    run.seed = c.seed;
    run.init = init;
    run.nonnegative = c.nonnegative;
    run.starts = starts;
    run.best_seed = best_seed;
    run.resumed_from = from.iteration;
    run.checkpoint = c.checkpoint;
    if (signals.received()) run.interrupted_by = signals.received() == SIGINT ? "SIGINT" : "SIGTERM";
    write_cp_als_json(c.json, run, res);
  }
  // Stopped by a signal: say where the work is, and exit with 128 + the signal's number, as a
  // shell reports a process the signal ended (130 for SIGINT, 143 for SIGTERM).
  if (const int sig = signals.received()) {
    const int last = res.iterations.empty() ? o.iterations_done : res.iterations.back().iteration;
    std::string where;
    if (!c.checkpoint.empty())
      where += "; checkpoint " + c.checkpoint + " (continue with --resume " + c.checkpoint + ")";
    if (!c.output.empty())
      where += "; factors so far in " + c.output + "_lambda.txt and " + c.output + "_mode1.." +
               std::to_string(X.ndims()) + ".txt";
    if (where.empty()) where = "; nothing saved (--checkpoint FILE or --output PREFIX keep the work)";
    std::fprintf(stderr, "grain cp-als: interrupted by %s after iteration %d%s\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM", last, where.c_str());
    return 128 + sig;
  }
  return 0;
}

bool cuda_asked(const CpAlsCommand& c) {
  return c.backend == "cuda" || (c.backend.empty() && default_backend() == std::string("cuda"));
}

// One rank's run; comm is null when it is the only one. `join` makes the rank ready (its GPU, its
// engine) and returns the Comm to run over. An error every rank shares ends each normally, rank 0
// saying it; an error of this rank alone stops the job, since the others wait in a collective.
template <class Join>
int run_rank(const CpAlsCommand& c, dist::Comm* comm, Join&& join) {
  try {
    comm = join();
    return with_backend_and_dtype(c.backend, c.dtype, [&](auto exec, auto value) {
      return cp_als_on<decltype(exec), decltype(value)>(c, comm);
    });
  } catch (const dist::AgreedError& e) {
    if (!comm) throw;
    // Rank 0 says it for all; the others wait until it has, since the launcher stops the job
    // at the first rank that exits with an error.
    if (comm->rank() == 0) {
      std::fprintf(stderr, "grain cp-als: error: %s\n", e.what());
      std::fflush(stderr);
    }
    (void)comm->allreduce_value<std::int64_t>(0);
    return 1;
  } catch (const std::exception& e) {
    if (!comm) throw;
    std::fprintf(stderr, "grain cp-als: error: rank %d of %d: %s; stopping every rank\n", comm->rank(), comm->size(),
                 e.what());
    comm->abort(1);
  }
}

// --gpus N: one process, a thread per GPU, each thread a rank of one NCCL clique with its own share
// of the nonzeros; rank 0 prints and writes.
int run_on_gpus(const CpAlsCommand& c) {
  if (dist::launched_ranks() > 1)
    impl::throw_error("--gpus runs one process over several GPUs; under an MPI launcher (", dist::launched_ranks(),
                      " ranks) each rank takes a GPU of its own: drop --gpus");
  if (!cuda_asked(c))
    impl::throw_error("--gpus ", c.gpus, " needs --backend cuda (the back end is ",
                      c.backend.empty() ? default_backend() : c.backend.c_str(), ")");
#if defined(GRAIN_ENABLE_CUDA)
  const int visible = impl::cuda_device_count();
  if (c.gpus > visible)
    impl::throw_error("--gpus ", c.gpus, ": ", visible, visible == 1 ? " GPU is" : " GPUs are", " visible");
  if (c.gpus == 1)
    return run_rank(c, nullptr, [] {
      impl::cuda_use_device(0);
      return static_cast<dist::Comm*>(nullptr);
    });
  if (!dist::nccl_built())
    impl::throw_error("--gpus ", c.gpus, ": this grain was built without NCCL (a CUDA build finds nccl.h and "
                      "libnccl in the CUDA toolkit or the system); run one MPI rank per GPU instead");
  std::vector<std::unique_ptr<dist::Comm>> comms = dist::nccl_local(c.gpus, c.comm_timeout);
  std::vector<int> codes(static_cast<std::size_t>(c.gpus), 1);
  std::vector<std::thread> threads;
  for (int g = 0; g < c.gpus; ++g)
    threads.emplace_back([&c, &codes, g, comm = std::move(comms[static_cast<std::size_t>(g)])]() mutable {
#if defined(GRAIN_ENABLE_OPENMP)
      // The host's cores shared between the GPUs' threads, not each taking all of them.
      omp_set_num_threads(std::max(1, omp_get_num_procs() / c.gpus));
#endif
      codes[static_cast<std::size_t>(g)] = run_rank(c, comm.get(), [&] {
        impl::cuda_use_device(g);
        return comm.get();
      });
      comm.reset();  // on its own thread: NCCL's tear-down may wait for the other ranks
    });
  for (auto& t : threads) t.join();
  return codes[0];
#else
  impl::throw_error("--gpus needs a CUDA build of grain");
#endif
}

}  // namespace

int run_cp_als(const CpAlsCommand& c) {
  if (c.gpus > 0) return run_on_gpus(c);
  // Under mpirun every rank takes a share; without MPI in this build, every rank would decompose
  // the whole tensor on its own, so that is refused.
  std::unique_ptr<dist::Comm> world, nccl;
  if (dist::launched_ranks() > 1) {
    if (!dist::mpi_built())
      impl::throw_error("started by an MPI launcher with ", dist::launched_ranks(), " ranks, but this grain was built without "
                        "MPI (Debian: apt-get install libopenmpi-dev, then build again)");
    world = dist::mpi_world(c.comm_timeout);
  }
  dist::Comm* comm = world && world->size() > 1 ? world.get() : nullptr;
  return run_rank(c, comm, [&]() -> dist::Comm* {
#if defined(GRAIN_ENABLE_CUDA)
    // One GPU per rank of a node; NCCL between them where it can be, else MPI through host copies.
    if (comm && cuda_asked(c)) {
      nccl = dist::take_rank_gpu(*comm, c.comm_timeout);
      if (nccl) return nccl.get();
    }
#endif
    return comm;
  });
}

int run_generate(const GenerateCommand& c) {
  const std::string& out = c.output;
  auto t0 = std::chrono::steady_clock::now();
  auto run = [&](auto value) {
    using T = decltype(value);
    auto X = generate_sparse<T>(c.gen);
    const double gen_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const bool text = out.size() >= 4 && (out.compare(out.size() - 4, 4, ".tns") == 0 ||
                                          (out.size() >= 7 && out.compare(out.size() - 7, 7, ".tns.gz") == 0));
    if (text)
      write_tns(out, X);
    else
      write_binary(out, X);
    std::printf("generated %s %s: %lld nonzeros from %lld samples (seed %llu) in %.2f s; wrote %s (%s) in %.2f s\n",
                generator_kind_name(c.gen.kind), dims_string(c.gen.dims).c_str(), static_cast<long long>(X.nnz()),
                static_cast<long long>(c.gen.kind == GeneratorKind::LowRank ? X.nnz() : c.gen.samples),
                static_cast<unsigned long long>(c.gen.seed), gen_s, out.c_str(), text ? "text" : "binary",
                seconds_since(t0));
    return 0;
  };
  if (c.dtype != "float" && c.dtype != "double")
    impl::throw_error("element type must be float or double, got '", c.dtype, "'");
  return c.dtype == "float" ? run(float{}) : run(double{});
}

}  // namespace grain::cli
