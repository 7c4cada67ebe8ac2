// grain::dist over NCCL (include/grain/dist/comm.hpp): collectives between GPUs on device buffers,
// each on the communicator's own stream, waited for, timed and watched (watch.hpp). The stream is
// a blocking one, so it starts after the work already queued on the default stream, where grain's
// kernels run. Host buffers go through a device copy. Uneven blocks (reduce-scatter, all-gather)
// are one NCCL reduce or broadcast per rank's block in one group: NCCL's own reduce-scatter and
// all-gather take equal blocks only. Without NCCL (GRAIN_ENABLE_NCCL undefined) the entry points
// say so.
#include "grain/dist/comm.hpp"

#if defined(GRAIN_ENABLE_NCCL)
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <optional>

#include "grain/core/backend/cuda_runtime.hpp"
#include "watch.hpp"
#endif
#if defined(GRAIN_ENABLE_CUDA)
#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain::dist {

std::unique_ptr<Comm> take_rank_gpu(Comm& world, double timeout_seconds) {
#if defined(GRAIN_ENABLE_CUDA)
  const int n = grain::impl::cuda_device_count();
  if (n == 0) grain::impl::throw_error("--backend cuda: no GPU is visible to rank ", world.rank());
  const int local = mpi_local_rank(world);
  grain::impl::cuda_use_device(local % n);
  const bool own_gpu = world.allreduce_value<std::int64_t>(local >= n ? 1 : 0, ReduceOp::Max) == 0;
  if (own_gpu && nccl_built()) return nccl_over(world, timeout_seconds);
  return nullptr;
#else
  (void)timeout_seconds;
  grain::impl::throw_error("rank ", world.rank(), ": this grain was built without the CUDA back end");
#endif
}

#if defined(GRAIN_ENABLE_NCCL)

bool nccl_built() { return true; }

namespace {

using grain::impl::cuda_check;

void check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  grain::impl::throw_error("NCCL ", what, " failed: ", ncclGetErrorString(r), " (", ncclGetLastError(nullptr), ")");
}
ncclDataType_t nccl_type(DataType t) {
  return t == DataType::Float ? ncclFloat32 : t == DataType::Double ? ncclFloat64 : ncclInt64;
}
ncclRedOp_t nccl_op(ReduceOp op) { return op == ReduceOp::Sum ? ncclSum : op == ReduceOp::Max ? ncclMax : ncclMin; }

bool device_memory(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

// Makes `device` current for this scope (a communicator's resources are freed from any thread).
struct OnDevice {
  int saved = 0;
  explicit OnDevice(int device) {
    cudaGetDevice(&saved);
    cudaSetDevice(device);
  }
  ~OnDevice() { cudaSetDevice(saved); }
};

class NcclComm final : public Comm {
 public:
  NcclComm(ncclComm_t comm, int device, double timeout, Comm* world) : comm_(comm), device_(device), world_(world) {
    check(ncclCommUserRank(comm_, &rank_), "rank query");
    check(ncclCommCount(comm_, &size_), "size query");
    watch_.emplace(rank_, size_, timeout);
  }
  ~NcclComm() override {
    watch_.reset();
    OnDevice on(device_);
    if (stream_) cudaStreamDestroy(stream_);
    if (scratch_) cudaFree(scratch_);
    ncclCommDestroy(comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* engine() const override { return "nccl"; }
  bool reaches_device() const override { return true; }

  void allreduce(void* data, std::size_t count, DataType t, ReduceOp op) override {
    const std::size_t bytes = count * data_type_size(t);
    Timed timed(*this, "an all-reduce", bytes);
    Staged d(*this, data, bytes, 0, true);
    check(ncclAllReduce(d.ptr, d.ptr, count, nccl_type(t), nccl_op(op), comm_, stream_), "all-reduce");
    finish();
    d.back();
  }
  void reduce_scatter(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override {
    const std::size_t sz = data_type_size(t);
    std::size_t total = 0;
    for (std::size_t c : counts) total += c;
    Timed timed(*this, "a reduce-scatter", total * sz);
    Staged s(*this, const_cast<void*>(send), total * sz, 0, true);
    Staged r(*this, recv, counts[static_cast<std::size_t>(rank_)] * sz, total * sz, false);
    check(ncclGroupStart(), "group start");
    std::size_t at = 0;
    for (int p = 0; p < size_; ++p) {
      const std::size_t n = counts[static_cast<std::size_t>(p)];
      check(ncclReduce(static_cast<const char*>(s.ptr) + at * sz, r.ptr, n, nccl_type(t), ncclSum, p, comm_, stream_),
            "reduce-scatter");
      at += n;
    }
    check(ncclGroupEnd(), "reduce-scatter");
    finish();
    r.back();
  }
  void allgather(void* data, const std::vector<std::size_t>& counts, DataType t) override {
    const std::size_t sz = data_type_size(t);
    std::size_t total = 0;
    for (std::size_t c : counts) total += c;
    Timed timed(*this, "an all-gather", counts[static_cast<std::size_t>(rank_)] * sz);
    Staged d(*this, data, total * sz, 0, true);
    check(ncclGroupStart(), "group start");
    std::size_t at = 0;
    for (int p = 0; p < size_; ++p) {
      const std::size_t n = counts[static_cast<std::size_t>(p)];
      char* block = static_cast<char*>(d.ptr) + at * sz;
      check(ncclBroadcast(block, block, n, nccl_type(t), p, comm_, stream_), "all-gather");
      at += n;
    }
    check(ncclGroupEnd(), "all-gather");
    finish();
    d.back();
  }
  void broadcast(void* data, std::size_t count, DataType t, int root) override {
    const std::size_t bytes = count * data_type_size(t);
    Timed timed(*this, "a broadcast", rank_ == root ? bytes : 0);
    Staged d(*this, data, bytes, 0, true);
    check(ncclBroadcast(d.ptr, d.ptr, count, nccl_type(t), root, comm_, stream_), "broadcast");
    finish();
    d.back();
  }

 private:
  void stop_others(int code) override {
    if (world_) world_->abort(code);
  }
  struct Timed {
    impl::CollectiveWatch::Scope scope;
    Timed(NcclComm& c, const char* what, std::size_t bytes) : scope(*c.watch_, what, c.seconds_) {
      c.ready();
      c.bytes_ += static_cast<double>(bytes);
    }
  };
  // A buffer as NCCL sees it: device memory as it is; host memory copied into the scratch at
  // `offset` (when `in`), and back by back().
  struct Staged {
    void* ptr;
    void* host = nullptr;
    std::size_t bytes;
    Staged(NcclComm& c, void* p, std::size_t n, std::size_t offset, bool in) : ptr(p), bytes(n) {
      if (n == 0 || device_memory(p)) return;
      host = p;
      ptr = static_cast<char*>(c.scratch(offset + n)) + offset;
      if (in) cuda_check(cudaMemcpy(ptr, host, n, cudaMemcpyHostToDevice), "cudaMemcpy (NCCL staging)");
    }
    void back() {
      if (host) cuda_check(cudaMemcpy(host, ptr, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (NCCL staging)");
    }
  };
  // The stream, made on first use from the thread that drives this rank's GPU.
  void ready() {
    int current = -1;
    cuda_check(cudaGetDevice(&current), "cudaGetDevice");
    if (current != device_)
      grain::impl::throw_error("grain::dist: NCCL rank ", rank_, " drives GPU ", device_,
                               ", but the calling thread's device is GPU ", current, " (cuda_use_device first)");
    if (!stream_) cuda_check(cudaStreamCreate(&stream_), "cudaStreamCreate (NCCL)");
  }
  void* scratch(std::size_t bytes) {
    if (bytes > scratch_bytes_) {
      if (scratch_) cudaFree(scratch_);
      scratch_ = nullptr;
      scratch_bytes_ = 0;
      cuda_check(cudaMalloc(&scratch_, bytes), "cudaMalloc (NCCL staging)");
      scratch_bytes_ = bytes;
    }
    return scratch_;
  }
  void finish() { cuda_check(cudaStreamSynchronize(stream_), "a NCCL collective"); }

  ncclComm_t comm_;
  int device_;
  Comm* world_;
  int rank_ = 0, size_ = 1;
  cudaStream_t stream_ = nullptr;
  void* scratch_ = nullptr;
  std::size_t scratch_bytes_ = 0;
  std::optional<impl::CollectiveWatch> watch_;
};

}  // namespace

std::unique_ptr<Comm> nccl_over(Comm& world, double timeout_seconds) {
  ncclUniqueId id{};
  std::string error;
  if (world.rank() == 0) {
    const ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) error = std::string("NCCL's id could not be made: ") + ncclGetErrorString(r);
  }
  world.agree(error);
  static_assert(sizeof(id) % 8 == 0, "ncclUniqueId travels as 64-bit words");
  world.broadcast(&id, sizeof(id) / 8, DataType::Int64, 0);
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  ncclComm_t comm = nullptr;
  {
    // Set-up waits for every rank: one that never comes must not hang the rest.
    impl::CollectiveWatch watch(world.rank(), world.size(), timeout_seconds);
    double seconds = 0;
    impl::CollectiveWatch::Scope scope(watch, "NCCL's set-up", seconds);
    const ncclResult_t r = ncclCommInitRank(&comm, world.size(), id, world.rank());
    error = r == ncclSuccess ? "" : std::string("NCCL's set-up on GPU ") + std::to_string(device) +
                                        " failed: " + ncclGetErrorString(r) + " (" + ncclGetLastError(nullptr) + ")";
  }
  world.agree(error);
  return std::make_unique<NcclComm>(comm, device, timeout_seconds, &world);
}

std::vector<std::unique_ptr<Comm>> nccl_local(int gpus, double timeout_seconds) {
  const int n = grain::impl::cuda_device_count();
  if (gpus < 1 || gpus > n)
    grain::impl::throw_error("grain::dist::nccl_local: ", gpus, " GPUs asked for, but ", n,
                             n == 1 ? " is" : " are", " visible");
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
  std::vector<int> devices(static_cast<std::size_t>(gpus));
  for (int i = 0; i < gpus; ++i) devices[static_cast<std::size_t>(i)] = i;
  check(ncclCommInitAll(comms.data(), gpus, devices.data()), "set-up");
  std::vector<std::unique_ptr<Comm>> out;
  for (int i = 0; i < gpus; ++i)
    out.push_back(std::make_unique<NcclComm>(comms[static_cast<std::size_t>(i)], i, timeout_seconds, nullptr));
  return out;
}

#else  // no NCCL

bool nccl_built() { return false; }

std::unique_ptr<Comm> nccl_over(Comm&, double) {
  grain::impl::throw_error("this grain was built without NCCL (a CUDA build finds it in the CUDA toolkit or "
                           "/usr/include/nccl.h)");
}
std::vector<std::unique_ptr<Comm>> nccl_local(int, double) {
  grain::impl::throw_error("this grain was built without NCCL (a CUDA build finds it in the CUDA toolkit or "
                           "/usr/include/nccl.h)");
}

#endif

}  // namespace grain::dist
