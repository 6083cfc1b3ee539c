package loopcompact

// Transcript safety (SPEC §14): tool-call pairing, safe cut points, and the loop guard.

/*
#include "loopcompact.h"
*/
import "C"

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
