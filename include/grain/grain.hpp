// The umbrella header: the whole public API of grain.
#pragma once

#include "grain/core.hpp"
#include "grain/cp.hpp"
#include "grain/contract/contract.hpp"
#include "grain/contract/plan.hpp"
