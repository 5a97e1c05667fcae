//===- KeyRecords.cpp - calls named by their file's key record ------------===//
//
// A file hmrewrite rewrote ends with its key record (KeyRecord.h): the key
// the plan named each call by, and which call that is by its tokens. A
// rerun reads it before anything else decides (RewriteSession::finish):
//  - with a plan that names the same keys of the file as the one the record
//    was made with (keysHashFor: kinds and other files may differ), each
//    call the record finds is named by its recorded key wherever it is now,
//    and a call the record does not find is named by no entry (the plan
//    never named it, whatever entry names where it is now: a reformat or an
//    edit put it there; a `files:` entry names calls by their file, so it
//    still does);
//  - with a plan naming other keys, in a file whose calls moved since, a
//    call is named by whichever key the plan names, where it is now or where
//    the record says; where the plan names both, or names a call the record
//    does not know in a file that moved, which call the entry means cannot
//    be told: the call is left as it is, and said so.
// The record is written again with what this run named (wantRecord).
//
//===----------------------------------------------------------------------===//
#include "KeyRecord.h"
#include "Rewrite.h"
#include "Splice.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>
#include <tuple>

using namespace clang;
using namespace llvm;

namespace hmplace {

/// A call of a file with a record, and the recorded key it has.
struct RewriteSession::RecordedCall {
  CallRecord *C;
  std::optional<TokenId> Id;
  const RecordedKey *Rec = nullptr;
};

namespace {
using IdKey = std::tuple<std::string, uint32_t, unsigned, unsigned>;
IdKey idKey(const TokenId &I) { return {I.Text, I.Context, I.Rank, I.Count}; }
} // namespace

bool RewriteSession::namesAt(const CallRecord &C, unsigned Line,
                             unsigned Column) const {
  SourcePos K{C.Key.File, Line, Column, ""};
  return C.Fn ? Matcher->wouldMatch(keyContext(C, K))
              : Matcher->wouldNote(K, C.CompileDir);
}

/// Whether \p C takes part in key records: an allocation call or a caller
/// frame whose key is a token of its own file.
static bool recordable(const CallRecord &C) {
  return C.HaveKeyOffset && (!C.Fn || C.Fn->allocates());
}

/// The calls of \p Cs the record finds: by their token ids; then, in a file
/// none of whose calls moved, an unfound one at the key of an unfound
/// entry with its token (an edit beside it changed its id). True if some
/// call moved (its key is not its recorded key) or some entry is not found.
template <typename RecordedCallT>
static bool matchRecord(std::vector<RecordedCallT> &Cs, const KeyRecord &R) {
  std::map<IdKey, const RecordedKey *> ById;
  for (const RecordedKey &K : R.Keys)
    ById[idKey(K.Id)] = &K;
  std::set<const RecordedKey *> Found;
  bool Moved = false;
  for (auto &RC : Cs) {
    if (!RC.Id)
      continue;
    auto It = ById.find(idKey(*RC.Id));
    if (It == ById.end() || !Found.insert(It->second).second)
      continue;
    RC.Rec = It->second;
    Moved |=
        RC.Rec->Line != RC.C->Key.Line || RC.Rec->Column != RC.C->Key.Column;
  }
  if (Moved)
    return true;
  for (const RecordedKey &K : R.Keys) {
    if (Found.count(&K))
      continue;
    for (auto &RC : Cs)
      if (!RC.Rec && RC.Id && RC.Id->Text == K.Id.Text &&
          RC.C->Key.Line == K.Line && RC.C->Key.Column == K.Column) {
        RC.Rec = &K;
        Found.insert(&K);
        break;
      }
  }
  return Found.size() != R.Keys.size() &&
         llvm::any_of(R.Keys, [&](const RecordedKey &K) {
           return !Found.count(&K) && llvm::none_of(Cs, [&](const auto &RC) {
             return RC.C->Key.Line == K.Line && RC.C->Key.Column == K.Column;
           });
         });
}

void RewriteSession::refuse(CallRecord &C, const std::string &Why) {
  C.Refused = Why;
  C.Settled = true;
}

/// With a plan naming the keys of the file the record was made with: the
/// record's keys.
void RewriteSession::settleSamePlan(std::vector<RecordedCall> &Cs) {
  // An earlier run's wrapper holds its call's arguments, and the calls in
  // them: it is the recorded call's.
  std::set<unsigned> Owned;
  for (RecordedCall &RC : Cs)
    if (RC.Rec && RC.C->Note && RC.C->Note->AlreadyNoted)
      Owned.insert(RC.C->Note->WrapBegin);
  for (RecordedCall &RC : Cs) {
    CallRecord &C = *RC.C;
    if (RC.Rec) {
      C.Key.Line = RC.Rec->Line;
      C.Key.Column = RC.Rec->Column;
      C.Joined.reset();
      C.Settled = true;
      continue;
    }
    if (!RC.Id || ThePlan->HasFileSets)
      continue;
    // The plan never named this call, whatever entry names where it is now
    // (an entry whose call the record does not find matches nothing, and
    // says so). An earlier run's edit of it is left as it is.
    if (C.Fn
            ? C.AlreadyPlaced
            : C.Note && C.Note->AlreadyNoted && !Owned.count(C.Note->WrapBegin))
      refuse(C, "placed by an earlier run, but not a call the plan names: "
                "its file's key record names others (the file was edited "
                "since it was rewritten with this plan); left as it is");
    else
      C.Unnamed = C.Settled = true;
  }
}

/// With another plan, in a file whose calls moved: all by where they are
/// now where the plan names every one so and not every one by where it
/// was, and the reverse. Else a call the plan names only where it was is
/// named so, unless a key of that place names another call where it is
/// now; a call named both ways differently, or only where it is now, is
/// refused.
void RewriteSession::settleOtherPlan(std::vector<RecordedCall> &Cs) {
  struct Names {
    bool Now = false, Rec = false;
  };
  std::vector<Names> N(Cs.size());
  std::map<std::pair<unsigned, unsigned>, std::vector<size_t>> NowAt, RecAt;
  bool AllNow = true, AllRec = true;
  for (size_t I = 0; I < Cs.size(); ++I) {
    const CallRecord &C = *Cs[I].C;
    const RecordedKey *Rec = Cs[I].Rec;
    N[I] = {namesAt(C, C.Key.Line, C.Key.Column),
            Rec && namesAt(C, Rec->Line, Rec->Column)};
    if (N[I].Now)
      NowAt[{C.Key.Line, C.Key.Column}].push_back(I);
    if (N[I].Rec)
      RecAt[{Rec->Line, Rec->Column}].push_back(I);
    if (N[I].Now || N[I].Rec) {
      AllNow &= N[I].Now;
      AllRec &= N[I].Rec;
    }
  }
  std::set<size_t> Conflict;
  for (auto &[Pos, Now] : NowAt)
    if (auto It = RecAt.find(Pos); It != RecAt.end())
      for (size_t A : Now)
        for (size_t B : It->second)
          if (A != B)
            Conflict.insert({A, B});
  for (size_t I = 0; I < Cs.size(); ++I) {
    CallRecord &C = *Cs[I].C;
    const RecordedKey *Rec = Cs[I].Rec;
    Names X = N[I];
    if (!X.Now && !X.Rec)
      continue;
    bool Same = Rec && Rec->Line == C.Key.Line && Rec->Column == C.Key.Column;
    // Where every key is of one text, that one; else only what no key
    // contradicts.
    bool Mixed = AllNow == AllRec;
    bool UseNow =
        X.Now && ((AllNow && !AllRec) || (Mixed && Same && !Conflict.count(I)));
    bool UseRec = X.Rec && ((AllRec && !AllNow) ||
                            (Mixed && !X.Now && !Conflict.count(I)));
    if (UseNow) {
      C.Settled = true;
    } else if (UseRec) {
      C.Key.Line = Rec->Line;
      C.Key.Column = Rec->Column;
      C.Joined.reset();
      C.Settled = true;
    } else {
      std::string Where = X.Now ? "where it is now (" + C.Key.str() + ")" : "";
      if (X.Rec)
        Where += std::string(X.Now ? " and " : "") +
                 "where it was when its file was rewritten (" +
                 std::to_string(Rec->Line) + ":" + std::to_string(Rec->Column) +
                 ")";
      refuse(C, "the plan names this call " + Where +
                    ", but its file moved since it was rewritten with another "
                    "plan, and the plan's keys there name calls both where "
                    "they are and where they were: which call an entry means "
                    "cannot be told; left as it is (rewrite with the plan it "
                    "was rewritten with first, or make the plan again from "
                    "this text)");
    }
  }
}

void RewriteSession::applyKeyRecords() {
  if (!Matcher)
    return;
  std::map<std::string, std::vector<CallRecord *>> ByFile;
  for (CallRecord &C : Calls)
    if (recordable(C))
      ByFile[C.Key.File].push_back(&C);
  for (auto &[File, Ptrs] : ByFile) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(File);
    if (!Buf)
      continue;
    StringRef Text = (*Buf)->getBuffer();
    TokenIndex Idx(Text);
    std::vector<RecordedCall> Cs;
    for (CallRecord *C : Ptrs) {
      Cs.push_back({C, Idx.idAt(C->KeyOffset)});
      if (Cs.back().Id) // what a plan's `tokens:` are checked against
        C->Token = tokenText(*Cs.back().Id);
    }
    std::optional<KeyRecord> R = findKeyRecord(Text);
    if (!R)
      continue;
    bool Moved = matchRecord(Cs, *R);
    if (R->PlanHash == keysHashFor(*ThePlan, sys::path::filename(File)))
      settleSamePlan(Cs);
    else if (Moved)
      settleOtherPlan(Cs);
  }
}

/// Where the text at \p Off of a file is once \p Reps are made: the start
/// of the edit that replaces it, if one does.
static unsigned offsetAfter(const tooling::Replacements &Reps, unsigned Off) {
  for (const tooling::Replacement &R : Reps)
    if (R.getOffset() < Off && Off < R.getOffset() + R.getLength())
      return Reps.getShiftedCodePosition(R.getOffset());
  return Reps.getShiftedCodePosition(Off);
}

std::optional<KeyRecord>
RewriteSession::wantRecord(const std::string &File, StringRef Old,
                           const tooling::Replacements &Reps) const {
  auto It = Named.find(File);
  if (It == Named.end() || !ThePlan)
    return std::nullopt;
  TokenIndex Was(Old);
  std::string New = splice(Old, Reps.begin(), Reps.end());
  TokenIndex Now(New);
  const std::vector<SourceToken> &Toks = Now.tokens();
  KeyRecord R;
  R.PlanHash = keysHashFor(*ThePlan, sys::path::filename(File));
  std::vector<const CallRecord *> Cs(It->second.begin(), It->second.end());
  llvm::sort(Cs, [](const CallRecord *A, const CallRecord *B) {
    return A->KeyOffset < B->KeyOffset;
  });
  for (const CallRecord *C : Cs) {
    std::optional<TokenId> Id = Was.idAt(C->KeyOffset);
    if (!Id)
      continue;
    // The call's token in the new text: the first of its text from where
    // its edit begins (the edits' own tokens are not counted).
    unsigned At = offsetAfter(Reps, C->KeyOffset);
    auto T = llvm::find_if(Toks, [&](const SourceToken &T) {
      return T.Offset >= At && T.Text == Id->Text;
    });
    if (T == Toks.end())
      continue;
    if (std::optional<TokenId> NewId = Now.idAt(T->Offset))
      R.Keys.push_back({C->Key.Line, C->Key.Column, *NewId});
  }
  if (R.Keys.empty())
    return std::nullopt;
  return R;
}

void RewriteSession::noteNamed(const CallRecord &C) {
  if (recordable(C))
    Named[C.Key.File].insert(&C);
}

} // namespace hmplace
