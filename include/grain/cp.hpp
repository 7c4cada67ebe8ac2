// Sparse tensors and CP decomposition: the sparse and cp layers.
#pragma once

#include "grain/sparse/sparse_tensor.hpp"
#include "grain/sparse/io.hpp"
#include "grain/sparse/generate.hpp"
#include "grain/sparse/compact.hpp"
#include "grain/cp/dense_solve.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/cp/mttkrp.hpp"
#include "grain/cp/cp_als.hpp"
#include "grain/cp/nvecs.hpp"
#include "grain/cp/score.hpp"
#include "grain/cp/checkpoint.hpp"
#include "grain/cp/memory.hpp"
