//===- TryStats.cpp - `hmplan try`: a curve's points against its first ----===//
#include "TryStats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hmplace {

Spread spreadOf(std::vector<double> Xs) {
  std::sort(Xs.begin(), Xs.end());
  Spread S;
  if (Xs.empty())
    return S;
  size_t N = Xs.size();
  S.Min = Xs.front();
  S.Max = Xs.back();
  S.Median = N % 2 ? Xs[N / 2] : (Xs[N / 2 - 1] + Xs[N / 2]) / 2;
  return S;
}

/// The pooled values' midranks, doubled to be whole numbers (values tied
/// share the mean of their ranks), and the ties' correction term
/// sum(t^3 - t) over the groups of t equal values.
static std::vector<unsigned> doubledRanks(const std::vector<double> &All,
                                          double &TieTerm) {
  size_t N = All.size();
  std::vector<size_t> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  std::sort(Order.begin(), Order.end(),
            [&](size_t X, size_t Y) { return All[X] < All[Y]; });
  std::vector<unsigned> R(N);
  TieTerm = 0;
  for (size_t I = 0; I < N;) {
    size_t J = I;
    while (J + 1 < N && All[Order[J + 1]] == All[Order[I]])
      ++J;
    // Ranks I+1 .. J+1 (1-based) share their mean; doubled: I + J + 2.
    for (size_t K = I; K <= J; ++K)
      R[Order[K]] = unsigned(I + J + 2);
    double T = double(J - I + 1);
    TieTerm += T * T * T - T;
    I = J + 1;
  }
  return R;
}

/// The exact null distribution of the sum of \p NA of the doubled ranks
/// \p R: Ways[s] counts the subsets of NA ranks summing to s.
static std::vector<double> subsetSums(const std::vector<unsigned> &R,
                                      size_t NA) {
  unsigned Total = 0;
  for (unsigned X : R)
    Total += X;
  // Ways[k][s], rolled over the ranks, k taken down to keep each once.
  std::vector<std::vector<double>> Ways(NA + 1,
                                        std::vector<double>(Total + 1, 0));
  Ways[0][0] = 1;
  for (unsigned X : R)
    for (size_t K = NA; K >= 1; --K)
      for (unsigned S = Total; S >= X; --S)
        Ways[K][S] += Ways[K - 1][S - X];
  return Ways[NA];
}

double mannWhitneyP(const std::vector<double> &A,
                    const std::vector<double> &B) {
  if (A.empty() || B.empty())
    return 1;
  std::vector<double> All(A);
  All.insert(All.end(), B.begin(), B.end());
  double TieTerm;
  std::vector<unsigned> R = doubledRanks(All, TieTerm);
  size_t NA = A.size(), N = All.size();
  double W = 0; // A's doubled rank sum
  for (size_t I = 0; I < NA; ++I)
    W += R[I];
  double Mean = double(NA) * double(N + 1); // doubled
  double Dev = std::fabs(W - Mean);
  if (N <= 80) {
    std::vector<double> Ways = subsetSums(R, NA);
    double Tail = 0, All2 = 0;
    for (size_t S = 0; S < Ways.size(); ++S) {
      All2 += Ways[S];
      if (std::fabs(double(S) - Mean) >= Dev - 1e-9)
        Tail += Ways[S];
    }
    return All2 > 0 ? std::min(1.0, Tail / All2) : 1.0;
  }
  // Normal approximation of the (undoubled) rank sum, ties corrected.
  double NB = double(B.size()), Nn = double(N);
  double Var = double(NA) * NB / 12 * ((Nn + 1) - TieTerm / (Nn * (Nn - 1)));
  if (Var <= 0)
    return 1;
  double Z = (Dev / 2 - 0.5) / std::sqrt(Var); // continuity corrected
  return std::min(1.0, std::erfc(std::max(0.0, Z) / std::sqrt(2.0)));
}

double smallestP(size_t NA, size_t NB) {
  double C = 1; // C(NA + NB, NA)
  for (size_t I = 1; I <= NA; ++I)
    C = C * double(NB + I) / double(I);
  return std::min(1.0, 2 / C);
}

std::vector<double> holmAdjust(const std::vector<double> &P) {
  size_t M = P.size();
  std::vector<size_t> Order(M);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t X, size_t Y) { return P[X] < P[Y]; });
  std::vector<double> Adj(M);
  double Run = 0;
  for (size_t I = 0; I < M; ++I) {
    Run = std::max(Run, std::min(1.0, double(M - I) * P[Order[I]]));
    Adj[Order[I]] = Run;
  }
  return Adj;
}

} // namespace hmplace
