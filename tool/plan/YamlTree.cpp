//===- YamlTree.cpp - build a YamlNode tree with LLVM's YAML parser -------===//
//
// LLVM's parser instead of yaml-cpp: about a hundred times fewer
// instructions per byte (a plan is read by every compile that loads
// HmPlace.so and by every hmrewrite run), locations that are pointers into
// the plan's own buffer, and errors without C++ exceptions.
//
//===----------------------------------------------------------------------===//
#include "plan/YamlTree.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace llvm;

namespace hmplace {

namespace {

class TreeBuilder {
public:
  TreeBuilder(StringRef Input, SourceMgr &SM)
      : Input(Input), NodeLimit(2 * Input.size() + 1024), SM(SM) {}

  /// Returns false once the input is refused (too deep, or aliases that
  /// would expand past any plan's size); the message is reported then.
  bool build(yaml::Node *N, YamlNode &Out, unsigned Depth) {
    if (Failed)
      return false;
    if (Depth > MaxDepth)
      return fail(N, "nested more than " + std::to_string(MaxDepth) +
                         " levels deep");
    if (++Nodes > NodeLimit)
      return fail(N, "aliases expand to more nodes than any plan holds");
    if (!N)
      return true;
    SMLoc Start = N->getSourceRange().Start;
    switch (N->getType()) {
    case yaml::Node::NK_Null:
      Out.K = YamlNode::Null;
      break;
    case yaml::Node::NK_Scalar: {
      auto *S = cast<yaml::ScalarNode>(N);
      StringRef Raw = S->getRawValue();
      Out.Loc = Start;
      // YAML's null spellings, as a plain (unquoted) scalar.
      if (Raw == "~" || Raw == "null" || Raw == "Null" || Raw == "NULL") {
        Out.K = YamlNode::Null;
        break;
      }
      SmallString<64> Storage;
      Out.K = YamlNode::Scalar;
      Out.Text = S->getValue(Storage).str();
      break;
    }
    case yaml::Node::NK_BlockScalar:
      Out.K = YamlNode::Scalar;
      Out.Loc = Start;
      Out.Text = cast<yaml::BlockScalarNode>(N)->getValue().str();
      break;
    case yaml::Node::NK_Mapping:
      Out.K = YamlNode::Map;
      Out.Loc = openingBracket(Start, '{');
      for (yaml::KeyValueNode &KV : *cast<yaml::MappingNode>(N)) {
        YamlPair P;
        // The key before the value: the stream is read in order.
        if (!build(KV.getKey(), P.Key, Depth + 1) ||
            !build(KV.getValue(), P.Value, Depth + 1))
          return false;
        if (P.Key.isNull() && !P.Key.Loc.isValid())
          P.Key.Loc = KV.getSourceRange().Start;
        Out.Pairs.push_back(std::move(P));
      }
      break;
    case yaml::Node::NK_Sequence:
      Out.K = YamlNode::Seq;
      Out.Loc = openingBracket(Start, '[');
      for (yaml::Node &Item : *cast<yaml::SequenceNode>(N)) {
        Out.Items.emplace_back();
        if (!build(&Item, Out.Items.back(), Depth + 1))
          return false;
      }
      break;
    case yaml::Node::NK_Alias: {
      StringRef Name = cast<yaml::AliasNode>(N)->getName();
      auto It = Anchored.find(Name);
      if (It == Anchored.end()) {
        Failed = true;
        SM.PrintMessage(aliasLoc(Start, Name), SourceMgr::DK_Error,
                        "unknown alias '*" + Name.str() + "'");
        return false;
      }
      Nodes += It->second.second;
      if (Nodes > NodeLimit)
        return fail(N, "aliases expand to more nodes than any plan holds");
      Out = It->second.first;
      Out.Loc = aliasLoc(Start, Name);
      return true;
    }
    case yaml::Node::NK_KeyValue:
      break; // only inside mappings, handled there
    }
    if (!N->getAnchor().empty())
      Anchored[N->getAnchor()] = {Out, countNodes(Out)};
    return true;
  }

  bool failed() const { return Failed; }

private:
  /// A flow collection's node starts after its bracket (the parser has
  /// taken it when it makes the node); a user is pointed at the bracket.
  SMLoc openingBracket(SMLoc Start, char Open) const {
    const char *P = Start.getPointer();
    if (!P || P < Input.begin() || P > Input.end())
      return Start;
    while (P > Input.begin() && isSpace(P[-1]))
      --P;
    return P > Input.begin() && P[-1] == Open ? SMLoc::getFromPointer(P - 1)
                                              : Start;
  }

  /// The parser's alias node starts after the alias: point at `*name`.
  SMLoc aliasLoc(SMLoc Start, StringRef Name) const {
    const char *P = Start.getPointer();
    if (!P || P < Input.begin() || P > Input.end())
      return Start;
    size_t At =
        StringRef(Input.begin(), P - Input.begin()).rfind(("*" + Name).str());
    return At == StringRef::npos ? Start
                                 : SMLoc::getFromPointer(Input.begin() + At);
  }

  static size_t countNodes(const YamlNode &N) {
    size_t C = 1;
    for (const YamlPair &P : N.Pairs)
      C += countNodes(P.Key) + countNodes(P.Value);
    for (const YamlNode &I : N.Items)
      C += countNodes(I);
    return C;
  }

  bool fail(yaml::Node *N, const std::string &Msg) {
    Failed = true;
    SM.PrintMessage(N ? N->getSourceRange().Start : SMLoc(),
                    SourceMgr::DK_Error, Msg);
    return false;
  }

  StringRef Input;
  static constexpr unsigned MaxDepth = 64;
  size_t Nodes = 0, NodeLimit;
  bool Failed = false;
  SourceMgr &SM;
  /// Anchored nodes as built, with their node counts, for aliases to copy;
  /// a later anchor of the same name replaces an earlier one.
  StringMap<std::pair<YamlNode, size_t>> Anchored;
};

} // namespace

bool parseYamlTree(MemoryBufferRef Buffer, YamlNode &Root, SMLoc &ErrLoc,
                   std::string &Err) {
  SourceMgr SM;
  // The parser's complaints are kept, not printed: the first one is the
  // plan's error, reported by the caller in its own format.
  struct Captured {
    SMLoc Loc;
    std::string Msg;
  } First;
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        auto *C = static_cast<Captured *>(Ctx);
        if (C->Msg.empty() && D.getKind() == SourceMgr::DK_Error) {
          C->Loc = D.getLoc();
          C->Msg = D.getMessage().str();
        }
      },
      &First);
  yaml::Stream S(Buffer, SM, /*ShowColors=*/false);
  TreeBuilder B(Buffer.getBuffer(), SM);
  Root = YamlNode();
  bool HaveRoot = false;
  for (yaml::document_iterator DI = S.begin(), DE = S.end(); DI != DE; ++DI) {
    YamlNode Doc;
    if (!B.build(DI->getRoot(), Doc, 0) || S.failed())
      break;
    if (!HaveRoot) {
      Root = std::move(Doc);
      HaveRoot = true;
    } else if (!Doc.isNull()) {
      SM.PrintMessage(Doc.Loc, SourceMgr::DK_Error,
                      "a plan is one YAML document; this is a second one");
      break;
    }
  }
  if (First.Msg.empty() && !S.failed() && !B.failed())
    return true;
  ErrLoc = First.Loc;
  Err = First.Msg.empty() ? "malformed YAML" : First.Msg;
  return false;
}

} // namespace hmplace
