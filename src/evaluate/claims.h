// The claims vendor comparisons make about RDMA fabrics (the project's
// CLAIMS list, paraphrased), each answered from this evaluation's numbers:
// supported, partly supported (where it holds and where not), contradicted,
// depends on an assumption (and which), or not measured here (and what would
// measure it). Every number in an answer cites the evaluation.json figure it
// comes from.
#pragma once

#include <string>
#include <vector>

#include "evaluate/report.h"

namespace rdmasim {

struct ClaimAnswer {
  int number = 0;
  std::string claim;
  std::string verdict;   // supported | partly supported | contradicted | depends on an assumption |
                         // not measured (| see the decision, for the guidance)
  std::string evidence;  // sentences citing figures as "value unit [figure id]"
  // The answer in a sentence or two, what the verdict rests on: where the
  // claim holds and where not, the assumption it depends on, or what would
  // measure it. The report shows it beside the verdict, the evidence below.
  std::string finding;
};

[[nodiscard]] std::vector<ClaimAnswer> answer_claims(const EvalReportInput& in);

}  // namespace rdmasim
