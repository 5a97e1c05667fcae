//===- TrySvg.cpp - `hmplan try`: the measured curve as SVG ---------------===//
#include "TrySvg.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace hmplace {

namespace {
/// The chart's frame: where values and points fall.
struct Frame {
  double W = 720, H = 420, Left = 80, Right = 24, Top = 48, Bottom = 72;
  double Lo = 0, Hi = 1;
  size_t Count = 1;
  double x(size_t I) const {
    double Span = W - Left - Right;
    return Count < 2
               ? Left + Span / 2
               : Left + Span * (0.05 + 0.9 * double(I) / double(Count - 1));
  }
  double y(double V) const {
    return Top + (H - Top - Bottom) * (1 - (V - Lo) / (Hi - Lo));
  }
};
} // namespace

static std::string escaped(StringRef S) {
  std::string Out;
  for (char C : S)
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += C;
    }
  return Out;
}

static std::string num(double V) {
  std::string S;
  raw_string_ostream(S) << format("%.1f", V);
  return S;
}

/// A value for an axis label: four significant digits.
static std::string label(double V) {
  std::string S;
  raw_string_ostream(S) << format("%.4g", V);
  return S;
}

/// The value range, padded, with the same values for a flat curve apart.
static void scale(const CurveChart &C, Frame &F) {
  F.Lo = C.Points.front().S.Min;
  F.Hi = C.Points.front().S.Max;
  for (const CurvePoint &P : C.Points) {
    F.Lo = std::min(F.Lo, P.S.Min);
    F.Hi = std::max(F.Hi, P.S.Max);
  }
  double Pad = (F.Hi - F.Lo) * 0.08;
  if (Pad <= 0)
    Pad = std::max(std::fabs(F.Hi) * 0.05, 1e-9);
  F.Lo -= Pad;
  F.Hi += Pad;
  F.Count = C.Points.size();
}

static void axes(const CurveChart &C, const Frame &F, raw_ostream &OS) {
  OS << "<line x1=\"" << num(F.Left) << "\" y1=\"" << num(F.Top) << "\" x2=\""
     << num(F.Left) << "\" y2=\"" << num(F.H - F.Bottom)
     << "\" stroke=\"#333\"/>\n";
  OS << "<line x1=\"" << num(F.Left) << "\" y1=\"" << num(F.H - F.Bottom)
     << "\" x2=\"" << num(F.W - F.Right) << "\" y2=\"" << num(F.H - F.Bottom)
     << "\" stroke=\"#333\"/>\n";
  for (int I = 0; I <= 4; ++I) {
    double V = F.Lo + (F.Hi - F.Lo) * I / 4;
    OS << "<text x=\"" << num(F.Left - 6) << "\" y=\"" << num(F.y(V) + 4)
       << "\" text-anchor=\"end\">" << label(V) << "</text>\n";
  }
  for (size_t I = 0; I < C.Points.size(); ++I) {
    const CurvePoint &P = C.Points[I];
    OS << "<text x=\"" << num(F.x(I)) << "\" y=\"" << num(F.H - F.Bottom + 18)
       << "\" text-anchor=\"middle\">" << escaped(P.Label) << "</text>\n";
    if (!P.Sub.empty())
      OS << "<text x=\"" << num(F.x(I)) << "\" y=\"" << num(F.H - F.Bottom + 34)
         << "\" text-anchor=\"middle\" fill=\"#555\">" << escaped(P.Sub)
         << "</text>\n";
  }
  OS << "<text x=\"" << num(F.W / 2) << "\" y=\"24\" text-anchor=\"middle\" "
     << "font-weight=\"bold\">" << escaped(C.Title) << "</text>\n";
  OS << "<text x=\"" << num(F.Left) << "\" y=\"" << num(F.Top - 8) << "\">"
     << escaped(C.YLabel) << "</text>\n";
}

static void curve(const CurveChart &C, const Frame &F, raw_ostream &OS) {
  OS << "<polyline fill=\"none\" stroke=\"#36c\" points=\"";
  for (size_t I = 0; I < C.Points.size(); ++I)
    OS << (I ? " " : "") << num(F.x(I)) << ","
       << num(F.y(C.Points[I].S.Median));
  OS << "\"/>\n";
  for (size_t I = 0; I < C.Points.size(); ++I) {
    const CurvePoint &P = C.Points[I];
    OS << "<line x1=\"" << num(F.x(I)) << "\" y1=\"" << num(F.y(P.S.Min))
       << "\" x2=\"" << num(F.x(I)) << "\" y2=\"" << num(F.y(P.S.Max))
       << "\" stroke=\"#333\" stroke-width=\"2\"/>\n";
    OS << "<circle cx=\"" << num(F.x(I)) << "\" cy=\"" << num(F.y(P.S.Median))
       << "\" r=\"5\" stroke=\"#c33\" stroke-width=\"2\" fill=\""
       << (P.Beyond ? "#c33" : "#fff") << "\"><title>" << escaped(P.Label)
       << ": median " << label(P.S.Median) << ", " << label(P.S.Min) << " to "
       << label(P.S.Max)
       << (&P == &C.Points.front() ? ", the baseline"
           : P.Beyond              ? ", beyond the noise"
                                   : ", within the noise")
       << "</title></circle>\n";
  }
}

std::string drawCurve(const CurveChart &C) {
  std::string Out;
  raw_string_ostream OS(Out);
  Frame F;
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(F.W)
     << "\" height=\"" << num(F.H) << "\" font-family=\"sans-serif\" "
     << "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
     << "fill=\"#fff\"/>\n";
  if (C.Points.empty()) {
    OS << "</svg>\n";
    return Out;
  }
  scale(C, F);
  const Spread &Base = C.Points.front().S;
  OS << "<rect x=\"" << num(F.Left) << "\" y=\"" << num(F.y(Base.Max))
     << "\" width=\"" << num(F.W - F.Left - F.Right) << "\" height=\""
     << num(F.y(Base.Min) - F.y(Base.Max)) << "\" fill=\"#ddd\"/>\n";
  axes(C, F, OS);
  curve(C, F, OS);
  OS << "<text x=\"" << num(F.Left) << "\" y=\"" << num(F.H - 10)
     << "\" fill=\"#555\">grey band: the range of the runs at "
     << escaped(C.Points.front().Label)
     << "; bars: each point's range; filled dots: beyond the noise</text>\n";
  OS << "</svg>\n";
  return Out;
}

} // namespace hmplace
