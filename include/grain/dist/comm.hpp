// grain::dist::Comm: the collectives distributed CP-ALS needs (all-reduce, reduce-scatter,
// all-gather, broadcast), over an existing engine: MPI across processes (src/dist/comm_mpi.cpp,
// built when CMake finds MPI), NCCL across GPUs (src/dist/comm_nccl.cpp, built with CUDA when
// CMake finds NCCL), or none (SelfComm: one process). grain puts nothing of its own on the wire;
// it only calls the engine's collectives.
//
// MPI works on host memory: the View overloads copy a device View through a host mirror (MPI here
// is not assumed to be CUDA-aware). NCCL works on device memory (reaches_device()): device Views
// go to it as they are, host buffers through a device copy.
//
// Every collective counts its seconds and the bytes this rank contributes, for the run's report.
// A collective that waits longer than the timeout ends the process, and so the job, so a rank
// that died never leaves the others hanging.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "grain/core.hpp"

namespace grain::dist {

enum class ReduceOp { Sum, Max, Min };

// The error every rank throws together (Comm::agree): every rank is at the same point, so each can
// end normally; a plain Error on one rank leaves the others waiting in a collective.
class AgreedError : public Error {
 public:
  using Error::Error;
};
enum class DataType { Float, Double, Int64 };

template <class T>
constexpr DataType data_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int64_t>,
                "grain::dist collectives move float, double or int64");
  if constexpr (std::is_same_v<T, float>) return DataType::Float;
  else if constexpr (std::is_same_v<T, double>) return DataType::Double;
  else return DataType::Int64;
}

// The rows [begin, begin + count) of 0..n-1 that rank p of P owns: contiguous blocks, the first
// n % P ranks one row more.
struct RowRange {
  index_type begin = 0, count = 0;
};
inline RowRange owned_rows(index_type n, int P, int p) {
  const index_type q = n / P, r = n % P;
  return {p * q + (p < r ? p : r), q + (p < r ? 1 : 0)};
}

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const char* engine() const = 0;
  // True when the collectives take device pointers as well as host ones (NCCL).
  virtual bool reaches_device() const { return false; }
  // Stops every rank of the job (after this one has printed why): the others may be waiting in a
  // collective this rank will never join. Flushes the output, has the engine stop the other
  // processes (stop_others), and ends this one.
  [[noreturn]] void abort(int code);

  // Host buffers. allreduce is in place. reduce_scatter sums `send` (the sum of counts elements)
  // over the ranks and leaves rank p's block (counts[p] elements) in `recv`. allgather is in place:
  // rank p's block of counts[p] elements sits at the prefix sum of the counts before it.
  virtual void allreduce(void* data, std::size_t count, DataType t, ReduceOp op) = 0;
  virtual void reduce_scatter(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) = 0;
  virtual void allgather(void* data, const std::vector<std::size_t>& counts, DataType t) = 0;
  virtual void broadcast(void* data, std::size_t count, DataType t, int root) = 0;

  template <class T>
  void allreduce(T* data, std::size_t count, ReduceOp op = ReduceOp::Sum) {
    allreduce(static_cast<void*>(data), count, data_type<T>(), op);
  }
  template <class T>
  T allreduce_value(T v, ReduceOp op = ReduceOp::Sum) {
    allreduce(&v, 1, op);
    return v;
  }

  // Every rank passes its error ("" for none). When any rank has one, every rank throws the same
  // AgreedError: the lowest such rank's message, naming that rank. Never throws otherwise.
  void agree(const std::string& error);

  // Time spent in collectives and bytes this rank sent into them, since construction.
  double seconds() const { return seconds_; }
  double bytes() const { return bytes_; }

 protected:
  // The engine's part of abort(): MPI_Abort across processes; nothing within one process.
  virtual void stop_others(int code) { (void)code; }
  double seconds_ = 0, bytes_ = 0;
};

// One process: every collective is the identity.
class SelfComm final : public Comm {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const char* engine() const override { return "self"; }
  void allreduce(void*, std::size_t, DataType, ReduceOp) override {}
  void reduce_scatter(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override;
  void allgather(void*, const std::vector<std::size_t>&, DataType) override {}
  void broadcast(void*, std::size_t, DataType, int) override {}
  using Comm::allreduce;
};

std::size_t data_type_size(DataType t);

// ---- MPI -------------------------------------------------------------------------------------------

// True when this grain was built with MPI.
bool mpi_built();
// The number of processes the MPI launcher (mpirun, srun) started, from the environment it sets;
// 0 when no launcher started this one.
int launched_ranks();
// MPI_COMM_WORLD, initializing MPI when needed (finalized when the last such Comm goes). A
// collective waiting more than timeout_seconds aborts every rank. Throws when MPI was not built.
std::unique_ptr<Comm> mpi_world(double timeout_seconds = 600);
// The rank of this process among those of its node (MPI's shared-memory split), for choosing a
// GPU per rank.
int mpi_local_rank(Comm& world);

// ---- NCCL ------------------------------------------------------------------------------------------

// True when this grain was built with NCCL (a CUDA build that found nccl.h and libnccl).
bool nccl_built();
// NCCL over the ranks of `world` (one process per GPU): this rank's GPU is the calling thread's
// current device. Rank 0's NCCL id reaches the others through `world`, which must outlive the
// result; abort() goes through it too.
std::unique_ptr<Comm> nccl_over(Comm& world, double timeout_seconds = 600);
// One process over GPUs 0..gpus-1: element i is rank i, to be used by a thread whose current
// device is GPU i (grain::impl::cuda_use_device(i)). abort() ends the process.
std::vector<std::unique_ptr<Comm>> nccl_local(int gpus, double timeout_seconds = 600);

// A rank of an MPI job on GPUs: the calling thread takes GPU (the rank's place among its node's
// ranks, modulo the GPUs visible). Returns NCCL over `world` when NCCL is built and every rank has
// a GPU of its own (NCCL takes one rank per GPU), else null: the ranks then talk through `world`
// on host copies. Throws when no GPU is visible or the build has no CUDA back end.
std::unique_ptr<Comm> take_rank_gpu(Comm& world, double timeout_seconds = 600);

// ---- Views of any space -----------------------------------------------------------------------

// The View's first n elements (all by default), summed (or max, min) over the ranks, in place.
template <class T, class... P>
void allreduce(Comm& c, const View<T*, P...>& v, ReduceOp op = ReduceOp::Sum, std::size_t n = std::size_t(-1)) {
  using S = typename View<T*, P...>::memory_space;
  if (c.size() == 1) return;
  if (n == std::size_t(-1)) n = v.extent(0);
  if (S::host_accessible || c.reaches_device()) {
    c.allreduce(v.data(), n, op);
  } else {
    View<T*, LayoutRight, HostSpace> h(WithoutInitializing, "allreduce_host", n);
    deep_copy(h, View<T*, LayoutRight, S>(v.data(), n));
    c.allreduce(h.data(), n, op);
    deep_copy(View<T*, LayoutRight, S>(v.data(), n), h);
  }
}

}  // namespace grain::dist
