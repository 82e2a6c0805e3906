// RepeatedSum: the result of adding the same double many times in a row, computed fast.
//
// Code that must stay bit-for-bit identical to a per-element loop (`for (...) sum += term;`)
// over long runs of equal terms (e.g. thousands of equal epoch durations) can call
// RepeatedSum(sum, term, count) instead: it returns exactly the double the loop would produce
// under IEEE-754 binary64 round-to-nearest-even, in O(log(sum)) steps rather than O(count).
// Why it works: while the running sum stays in one binade [2^e, 2^(e+1)), every addition adds the
// same multiple of that binade's ulp once a first in-binade addition has settled the parity that
// ties round to, so whole stretches can be added as one exact product.
#ifndef JIGSAW_CORE_REPEATED_SUM_H_
#define JIGSAW_CORE_REPEATED_SUM_H_

namespace jigsaw {

// `count` sequential additions of `term` to `sum` (count <= 0: `sum` unchanged). The fast path
// needs term > 0 and sum >= 0, both finite; anything else falls back to the plain loop.
double RepeatedSum(double sum, double term, long long count);

}  // namespace jigsaw

#endif  // JIGSAW_CORE_REPEATED_SUM_H_
