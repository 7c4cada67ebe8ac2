// grain::dist over MPI (include/grain/dist/comm.hpp): MPI_COMM_WORLD's collectives on host
// buffers, each timed and watched (watch.hpp): one that waits past the timeout ends this process,
// and the launcher then stops the others. Without MPI (GRAIN_ENABLE_MPI undefined) the entry points say so.
#include "grain/dist/comm.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#if defined(GRAIN_ENABLE_MPI)
// MPI's C API only: the deprecated C++ bindings would need their own library.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <optional>

#include "watch.hpp"
#endif

namespace grain::dist {

int launched_ranks() {
  // Open MPI, MPICH/Hydra and Slurm set these in every process they start.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* s = std::getenv(v)) return std::max(1, std::atoi(s));
  return std::getenv("PMIX_RANK") ? 1 : 0;
}

#if defined(GRAIN_ENABLE_MPI)

bool mpi_built() { return true; }

namespace {

MPI_Datatype mpi_type(DataType t) {
  return t == DataType::Float ? MPI_FLOAT : t == DataType::Double ? MPI_DOUBLE : MPI_INT64_T;
}
MPI_Op mpi_op(ReduceOp op) { return op == ReduceOp::Sum ? MPI_SUM : op == ReduceOp::Max ? MPI_MAX : MPI_MIN; }

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  grain::impl::throw_error("MPI ", what, " failed: ", std::string(text, static_cast<std::size_t>(len)));
}

int as_int(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    grain::impl::throw_error("MPI ", what, ": ", n, " elements exceed MPI's int counts (", INT_MAX, ")");
  return static_cast<int>(n);
}

int g_users = 0;               // MpiComm objects alive
bool g_we_initialized = false;  // MPI_Finalize is ours to call

class MpiComm final : public Comm {
 public:
  explicit MpiComm(double timeout) {
    int init = 0;
    MPI_Initialized(&init);
    if (!init) {
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "initialization");
      g_we_initialized = true;
    }
    ++g_users;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    watch_.emplace(rank_, size_, timeout);
  }
  ~MpiComm() override {
    watch_.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (--g_users == 0 && g_we_initialized && !finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* engine() const override { return "mpi"; }

  void allreduce(void* data, std::size_t count, DataType t, ReduceOp op) override {
    Timed timed(*this, "an all-reduce", count * data_type_size(t));
    check(MPI_Allreduce(MPI_IN_PLACE, data, as_int(count, "all-reduce"), mpi_type(t), mpi_op(op), MPI_COMM_WORLD),
          "all-reduce");
  }
  void reduce_scatter(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override {
    std::vector<int> c(counts.size());
    std::size_t total = 0;
    for (std::size_t p = 0; p < counts.size(); ++p) total += counts[p], c[p] = as_int(counts[p], "reduce-scatter");
    as_int(total, "reduce-scatter");
    Timed timed(*this, "a reduce-scatter", total * data_type_size(t));
    check(MPI_Reduce_scatter(send, recv, c.data(), mpi_type(t), MPI_SUM, MPI_COMM_WORLD), "reduce-scatter");
  }
  void allgather(void* data, const std::vector<std::size_t>& counts, DataType t) override {
    std::vector<int> c(counts.size()), displ(counts.size());
    std::size_t at = 0;
    for (std::size_t p = 0; p < counts.size(); ++p) {
      c[p] = as_int(counts[p], "all-gather");
      displ[p] = as_int(at, "all-gather");
      at += counts[p];
    }
    Timed timed(*this, "an all-gather", counts[static_cast<std::size_t>(rank_)] * data_type_size(t));
    check(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, c.data(), displ.data(), mpi_type(t),
                         MPI_COMM_WORLD),
          "all-gather");
  }
  void broadcast(void* data, std::size_t count, DataType t, int root) override {
    Timed timed(*this, "a broadcast", rank_ == root ? count * data_type_size(t) : 0);
    check(MPI_Bcast(data, as_int(count, "broadcast"), mpi_type(t), root, MPI_COMM_WORLD), "broadcast");
  }

 private:
  void stop_others(int code) override {
    if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
  }
  // Times one collective, under the watch, and counts the bytes this rank sends into it.
  struct Timed {
    impl::CollectiveWatch::Scope scope;
    Timed(MpiComm& c, const char* what, std::size_t bytes) : scope(*c.watch_, what, c.seconds_) {
      c.bytes_ += static_cast<double>(bytes);
    }
  };
  int rank_ = 0, size_ = 1;
  std::optional<impl::CollectiveWatch> watch_;
};

}  // namespace

std::unique_ptr<Comm> mpi_world(double timeout_seconds) { return std::make_unique<MpiComm>(timeout_seconds); }

int mpi_local_rank(Comm& world) {
  (void)world;
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "node split");
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

#else  // no MPI

bool mpi_built() { return false; }

std::unique_ptr<Comm> mpi_world(double) {
  grain::impl::throw_error("this grain was built without MPI (Debian: apt-get install libopenmpi-dev, then "
                           "configure again)");
}
int mpi_local_rank(Comm&) { return 0; }

#endif

}  // namespace grain::dist
