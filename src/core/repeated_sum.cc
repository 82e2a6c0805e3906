#include "core/repeated_sum.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace jigsaw {

double RepeatedSum(double sum, double term, long long count) {
  if (count <= 0) return sum;
  if (!(term > 0) || !(sum >= 0) || !std::isfinite(term) || !std::isfinite(sum)) {
    for (; count > 0; --count) sum += term;
    return sum;
  }
  while (count > 0) {
    sum += term;  // a plain step: it may cross into another binade
    --count;
    // Below 2^-969 the ulp of a binade would be subnormal: keep to plain steps there.
    if (count == 0 || !std::isfinite(sum) || sum < DBL_MIN * 0x1p53) continue;
    int exponent = 0;
    std::frexp(sum, &exponent);  // sum in [2^(exponent-1), 2^exponent)
    const double upper = std::ldexp(1.0, exponent);
    const double ulp = std::ldexp(1.0, exponent - 53);
    // One addition that starts and ends inside the binade: a tie has now rounded to even.
    const double settled = sum + term;
    if (settled >= upper) continue;
    sum = settled;
    if (--count == 0) break;
    const double next = sum + term;
    if (next >= upper) continue;
    const double step = next - sum;  // exact: both are multiples of ulp in the same binade
    if (step == 0) break;            // term is below half an ulp: the sum no longer changes
    // Every further addition inside the binade adds `step`; jump over those staying below upper.
    const long long room = static_cast<long long>((upper - sum) / ulp);
    const long long per = static_cast<long long>(step / ulp);
    const long long jump = std::min(count, (room - 1) / per);
    sum += static_cast<double>(jump) * step;  // exact: an integer multiple of ulp below upper
    count -= jump;
  }
  return sum;
}

}  // namespace jigsaw
