#pragma once
// numaplace's own file formats, both ways: the optional numaplace::formats component (link it;
// it needs nlohmann-json and {fmt}). The core headers, numaplace.hpp among them, never include
// these. formats/hwloc_source.hpp is left out: it needs the numaplace::hwloc component too.

#include "formats/experiment_json.hpp"
#include "formats/explain_input_json.hpp"
#include "formats/format_error.hpp"
#include "formats/json_checker.hpp"
#include "formats/json_positions.hpp"
#include "formats/json_stamp.hpp"
#include "formats/machine_costs_json.hpp"
#include "formats/machine_request.hpp"
#include "formats/read_input.hpp"
#include "formats/sim_report_json.hpp"
#include "formats/topology_json.hpp"
#include "formats/topology_source.hpp"
#include "formats/workload_bounds.hpp"
#include "formats/workload_spec.hpp"
