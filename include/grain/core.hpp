// grain core: the portable programming model (View, layouts, spaces, policies, patterns).
#pragma once

#include "grain/core/config.hpp"
#include "grain/core/error.hpp"
#include "grain/core/layout.hpp"
#include "grain/core/memory_space.hpp"
#include "grain/core/view.hpp"
#include "grain/core/deep_copy.hpp"
#include "grain/core/execution_space.hpp"
#include "grain/core/policy.hpp"
#include "grain/core/reducers.hpp"
#include "grain/core/atomic.hpp"
#include "grain/core/parallel.hpp"
#include "grain/core/backend/host.hpp"
#include "grain/core/backend/cuda.hpp"
