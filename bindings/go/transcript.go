package loopcompact

// Transcript safety (SPEC §14): tool-call pairing, safe cut points, and the loop guard.

/*
#include "loopcompact.h"
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"runtime"
	"unsafe"
)

// pairingDiagnosis is the diagnose function of diagnosed for a status of the pairing check
// (500–503), which every cut function runs first; other statuses have no diagnosis.
func pairingDiagnosis(h *C.lc_compaction_input) func(*C.lc_diagnostic) C.lc_status {
	return func(d *C.lc_diagnostic) C.lc_status { return C.lc_transcript_pairing_check(h, d) }
}

// CheckPairing checks the tool-call pairing of the transcript (SPEC S14.3,
// lc_transcript_pairing_check): every tool_use block of an assistant message is answered by
// exactly one tool result after it and before the next assistant message, every result answers a
// call of the latest assistant message before it, and no tool_use id appears twice. It returns
// nil or the first violation: StatusPairingUnansweredCall, StatusPairingOrphanResult,
// StatusPairingDuplicateID, StatusPairingDuplicateResult, with Location
// "transcript[i].blocks[j]" (or "transcript[i].tool_use_id") and the Offset of the id in the wire
// document (never the id itself).
func (in *Input) CheckPairing() error {
	h, err := in.acquire()
	if err != nil {
		return err
	}
	defer in.release()
	return diagnosed(C.lc_transcript_pairing_check(h, nil), pairingDiagnosis(h))
}

// SafeCut returns the largest message index c <= n-keepLast (n messages) such that messages
// [0, c) can be summarised and [c, n) kept without splitting a tool call from its result (SPEC
// S14.4, lc_transcript_safe_cut). 0 means nothing can be summarised while keeping keepLast
// messages: the caller must handle it. A transcript that fails CheckPairing gives that error.
func (in *Input) SafeCut(keepLast uint64) (uint64, error) {
	h, err := in.acquire()
	if err != nil {
		return 0, err
	}
	defer in.release()
	var cut C.uint64_t
	if err := diagnosed(C.lc_transcript_safe_cut(h, C.uint64_t(keepLast), &cut), pairingDiagnosis(h)); err != nil {
		return 0, err
	}
	return uint64(cut), nil
}

// CheckCut checks that summarising messages [0, cut) and keeping [cut, n) splits no tool
// call/result pair (SPEC S14.4, lc_transcript_cut_check): nil, StatusCutUnsafe,
// StatusInvalidArgument for a cut above the message count, or the error of CheckPairing.
func (in *Input) CheckCut(cut uint64) error {
	h, err := in.acquire()
	if err != nil {
		return err
	}
	defer in.release()
	return diagnosed(C.lc_transcript_cut_check(h, C.uint64_t(cut)), pairingDiagnosis(h))
}

// CheckCompactionProgress is the first half of the loop guard (SPEC S14.5,
// lc_compaction_progress_check): the occupancy of postInputTokens against inputLimit after the
// replacement must be below the policy's rearmBelow, or the next turn compacts again
// (StatusCompactionNoProgress: shrink MaxSummaryTokens, keep a shorter tail, or stop).
// StatusOccupancyZeroLimit for a zero limit.
func CheckCompactionProgress(postInputTokens, inputLimit uint64, rearmBelow uint16) error {
	return check(C.lc_compaction_progress_check(C.uint64_t(postInputTokens), C.uint64_t(inputLimit),
		C.uint16_t(rearmBelow)))
}

// CheckCompactionThreshold is the second half of the loop guard (SPEC S14.6,
// lc_compaction_threshold_check): even an empty history costs fixedTokens (system prompt, tool
// definitions) plus the policy's MaxSummaryTokens, and that must stay below RearmBelow of
// inputLimit, or compaction triggers forever (StatusCompactionThresholdUnreachable).
// StatusOccupancyZeroLimit for a zero limit; StatusPolicyWire, with the diagnosis of
// ValidateCompactionPolicy, for a policy document that does not decode (its values are not
// validated here: see ValidateCompactionPolicy).
func CheckCompactionThreshold(policy []byte, inputLimit, fixedTokens uint64) error {
	p, n := bytesArg(policy)
	rc := C.lc_compaction_threshold_check(p, n, C.uint64_t(inputLimit), C.uint64_t(fixedTokens))
	if rc != C.LC_POLICY_WIRE {
		return check(rc)
	}
	return diagnosed(rc, func(d *C.lc_diagnostic) C.lc_status {
		return C.lc_compaction_policy_diagnose(p, n, C.LC_COUNTER_QUALITY_UNKNOWN, d)
	})
}

// CutOptions choose or check a cut beyond SPEC S14.4 (SPEC G16.13, G16.16). The zero value is
// S14.4 itself: SafeCutWith(k, CutOptions{}) is SafeCut(k).
type CutOptions struct {
	// PendingTail keeps a pending tail (the unanswered calls of the last assistant message: the
	// agent is waiting for results) on the kept side, cutting at or before that message, instead
	// of refusing the transcript with StatusPairingUnansweredCall (LC_CUT_PENDING_TAIL).
	PendingTail bool
	// Allowed, when not nil, holds n+1 entries: Allowed[c] says whether cut c may be taken (a
	// Conversion's CutAllowed). Another length, an empty non-nil slice included, is
	// StatusInvalidArgument.
	Allowed []bool
}

func (o CutOptions) args() (C.uint32_t, *C.uint8_t, C.size_t, []byte) {
	var flags C.uint32_t
	if o.PendingTail {
		flags = C.LC_CUT_PENDING_TAIL
	}
	if o.Allowed == nil {
		return flags, nil, 0, nil
	}
	allowed := make([]byte, len(o.Allowed))
	for i, a := range o.Allowed {
		if a {
			allowed[i] = 1
		}
	}
	if len(allowed) == 0 {
		// An empty list is a list of length 0, not the absence of one (G16.16): a pointer that is
		// not NULL, with length 0, which the library refuses.
		allowed = make([]byte, 1)
		return flags, (*C.uint8_t)(unsafe.Pointer(&allowed[0])), 0, allowed
	}
	p, n := bytesArg(allowed)
	return flags, p, n, allowed
}

// SafeCutWith is SafeCut with CutOptions (SPEC G16.13, G16.16, lc_transcript_safe_cut_with): with
// PendingTail, a transcript whose only violations are unanswered calls of its last assistant
// message p gets the largest cut c <= min(n-keepLast, p) that splits no pair; Allowed restricts
// the cuts. Errors: CheckPairing's (other violations), StatusInvalidArgument (a wrong Allowed).
func (in *Input) SafeCutWith(keepLast uint64, opts CutOptions) (uint64, error) {
	h, err := in.acquire()
	if err != nil {
		return 0, err
	}
	defer in.release()
	flags, p, n, keep := opts.args()
	var cut C.uint64_t
	rc := C.lc_transcript_safe_cut_with(h, C.uint64_t(keepLast), flags, p, n, &cut)
	runtime.KeepAlive(keep)
	if err := diagnosed(rc, pairingDiagnosis(h)); err != nil {
		return 0, err
	}
	return uint64(cut), nil
}

// CheckCutWith is CheckCut with CutOptions (lc_transcript_cut_check_with): with PendingTail and a
// pending tail, a cut is safe when it is at most the last assistant message and splits no pair.
func (in *Input) CheckCutWith(cut uint64, opts CutOptions) error {
	h, err := in.acquire()
	if err != nil {
		return err
	}
	defer in.release()
	flags, p, n, keep := opts.args()
	rc := C.lc_transcript_cut_check_with(h, C.uint64_t(cut), flags, p, n)
	runtime.KeepAlive(keep)
	return diagnosed(rc, pairingDiagnosis(h))
}

// NoBlock is Violation.Block for a tool message's own tool_use_id (LC_NO_BLOCK).
const NoBlock = C.LC_NO_BLOCK

// Violation is one S14.3 violation (SPEC G16.14): which rule (StatusPairingUnansweredCall,
// StatusPairingOrphanResult, StatusPairingDuplicateID, StatusPairingDuplicateResult), the message
// and top-level block (NoBlock for a tool message's own tool_use_id), and the Offset of the id's
// string body in the wire document. Never the id.
type Violation struct {
	Status  Status
	Message uint64
	Block   uint64
	Offset  uint64
}

// PairingViolations lists every S14.3 violation in transcript order (lc_transcript_pairing_violations);
// nil for a well-paired transcript. The first is the one CheckPairing reports.
func (in *Input) PairingViolations() ([]Violation, error) {
	h, err := in.acquire()
	if err != nil {
		return nil, err
	}
	defer in.release()
	var n C.size_t
	rc := C.lc_transcript_pairing_violations(h, nil, 0, &n)
	if rc == C.LC_OK {
		return nil, nil
	}
	if rc != C.LC_ERR_BUFFER_TOO_SMALL {
		return nil, check(rc)
	}
	out := make([]C.lc_violation, int(n))
	if rc := C.lc_transcript_pairing_violations(h, &out[0], n, &n); rc != C.LC_OK {
		return nil, check(rc)
	}
	vs := make([]Violation, len(out))
	for i, v := range out {
		vs[i] = Violation{Status: Status(v.status), Message: uint64(v.message), Block: uint64(v.block), Offset: uint64(v.offset)}
	}
	return vs, nil
}

// RepairDropResult and RepairAddResult are the actions of a Repair (SPEC G16.15).
const (
	RepairDropResult = "drop_result"
	RepairAddResult  = "add_result"
)

// Repair is one edit of a repair plan (SPEC G16.15), in the transcript's indices:
//   - RepairDropResult: drop the top-level block Block of message Message (Block nil: the tool
//     message itself); a message other than a tool message left with no block goes with it.
//   - RepairAddResult: insert before message Before (n: at the end) a tool message answering the
//     call at block CallBlock of message CallMessage, with tool_use_id ToolUseID, is_error true
//     and Text.
type Repair struct {
	Action      string  `json:"action"`
	Message     uint64  `json:"message,omitempty"`
	Block       *uint64 `json:"block,omitempty"`
	Before      uint64  `json:"before,omitempty"`
	CallMessage uint64  `json:"call_message,omitempty"`
	CallBlock   uint64  `json:"call_block,omitempty"`
	ToolUseID   string  `json:"tool_use_id,omitempty"`
	Text        string  `json:"text,omitempty"`
}

func (in *Input) repairBytes(pendingTail bool, plan bool) ([]byte, error) {
	h, err := in.acquire()
	if err != nil {
		return nil, err
	}
	defer in.release()
	var flags C.uint32_t
	if pendingTail {
		flags = C.LC_CUT_PENDING_TAIL
	}
	call := func(buf *C.uint8_t, cap C.size_t, n *C.size_t) C.lc_status {
		if plan {
			return C.lc_transcript_repair_plan(h, flags, buf, cap, n)
		}
		return C.lc_transcript_repair(h, flags, buf, cap, n)
	}
	var n C.size_t
	rc := call(nil, 0, &n)
	if rc != C.LC_ERR_BUFFER_TOO_SMALL {
		return nil, diagnosed(rc, pairingDiagnosis(h))
	}
	buf := make([]byte, int(n))
	if rc := call((*C.uint8_t)(unsafe.Pointer(&buf[0])), n, &n); rc != C.LC_OK {
		return nil, check(rc)
	}
	return buf[:int(n)], nil
}

// RepairPlan returns the edits that make the transcript pass S14.3 (SPEC G16.15,
// lc_transcript_repair_plan); with pendingTail, a pending tail's calls get no result. Nothing is
// applied: the host applies the plan to its own messages and checks again, or takes
// RepairedTranscript. StatusPairingDuplicateID when a call id repeats (no repair without changing
// an assistant message).
func (in *Input) RepairPlan(pendingTail bool) ([]Repair, error) {
	raw, err := in.repairBytes(pendingTail, true)
	if err != nil {
		return nil, err
	}
	var plan []Repair
	if err := json.Unmarshal(raw, &plan); err != nil {
		return nil, fmt.Errorf("loopcompact: the repair plan is not JSON (a library bug): %w", err)
	}
	return plan, nil
}

// RepairedTranscript returns the transcript with RepairPlan applied (lc_transcript_repair): a
// JSON array of wire messages in canonical bytes that passes S14.3 (with pendingTail: but for a
// pending tail).
func (in *Input) RepairedTranscript(pendingTail bool) ([]byte, error) {
	return in.repairBytes(pendingTail, false)
}

func (in *Input) count(f func(*C.lc_compaction_input, *C.uint64_t) C.lc_status) (uint64, error) {
	h, err := in.acquire()
	if err != nil {
		return 0, err
	}
	defer in.release()
	var v C.uint64_t
	if err := check(f(h, &v)); err != nil {
		return 0, err
	}
	return uint64(v), nil
}

// MessageCount returns the number of transcript messages n (cuts run from 0 to n).
func (in *Input) MessageCount() (uint64, error) {
	return in.count(func(h *C.lc_compaction_input, v *C.uint64_t) C.lc_status {
		return C.lc_compaction_input_message_count(h, v)
	})
}

// MaxSummaryTokens returns the input's max_summary_tokens (the summariser's output budget).
func (in *Input) MaxSummaryTokens() (uint64, error) {
	return in.count(func(h *C.lc_compaction_input, v *C.uint64_t) C.lc_status {
		return C.lc_compaction_input_max_summary_tokens(h, v)
	})
}

// LeadingSystems returns the number of system messages at the start of the transcript (SPEC
// R15.8: kept by the replacement; a cut at or below it has nothing to summarise).
func (in *Input) LeadingSystems() (uint64, error) {
	return in.count(func(h *C.lc_compaction_input, v *C.uint64_t) C.lc_status {
		return C.lc_compaction_input_leading_systems(h, v)
	})
}
