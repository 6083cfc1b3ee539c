// Package loopcompact is a cgo binding of the loopcompact C library: the validation boundary of
// agent-loop context compaction (summary XML grammar, compaction input and output wires, policies,
// context limits, request fingerprints, diagnostics and transcript safety). The contract is
// docs/SPEC.md of the repository; every function here wraps functions of include/loopcompact.h.
//
// # Linking
//
// By default the package links the prebuilt static library of its release (prebuilt/ of the module
// at a release tag, for linux, darwin and windows on amd64 and arm64 where built): `go get` and a
// C compiler are all a build needs, no Rust toolchain and no installed library. Build tags choose
// otherwise:
//
//	loopcompact_musl       the prebuilt library for musl Linux (Alpine), with CC a musl compiler
//	loopcompact_pkgconfig  the installed shared library, found by pkg-config (loopcompact.pc, as
//	                       `cargo cinstall` installs it): set PKG_CONFIG_PATH for a prefix
//	                       pkg-config does not search
//	loopcompact_static     the installed libloopcompact.a (pkg-config --static): the program
//	                       needs no libloopcompact.so at run time
//	loopcompact_intree     the repository's own tests: the checkout's include/ and target/release
//
// LinkMode says which one a build uses.
//
// # Errors
//
// Every failure is an *Error carrying the status, its name, reason and message and, for a
// document that was checked, the diagnosis of SPEC §13 (offset, line, column, section, rule,
// expected, location, limit and actual). The sentinels for errors.Is are the Status constants
// (one per status) and the Class constants (one per class: errors.Is(err, ClassRetry) asks
// whether the summariser can fix it); errors.As gives the *Error.
//
// # Converters
//
// FromOpenAIChat, FromOpenAIResponses, FromAnthropic, FromGemini, FromLangChain and
// FromModelMessages turn the message list a loop holds, as the JSON its provider takes, into the
// wire transcript (SPEC §16); Conversion.Input makes the compaction input, and Compact's
// *Compacted rebuilds the list in its own format with Messages.
//
// # Concurrency and memory
//
// Every function is safe for concurrent use; an *Input may be shared between goroutines, and
// Close waits for calls in flight on it. Byte slices are borrowed for the duration of one call
// only: the library never keeps a Go pointer. An empty or nil slice is passed as (NULL, 0), the
// empty buffer.
package loopcompact

/*
#include "loopcompact.h"
*/
import "C"

import (
	"encoding/hex"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// HeaderABIVersion is LC_ABI_VERSION of the header this package was compiled against; ABIVersion
// returns the library's. They differ only when the package is linked against an incompatible build.
const HeaderABIVersion = C.LC_ABI_VERSION

// FingerprintLen is the size of a request fingerprint (a SHA-256 digest).
const FingerprintLen = C.LC_FINGERPRINT_LEN

// bytesArg borrows b for one C call: (NULL, 0) when empty, otherwise a pointer to its first byte.
// C never keeps the pointer (SPEC §1), and a []byte holds no Go pointers, so cgo's rules hold.
func bytesArg(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))), C.size_t(len(b))
}

// Version is the library's version string, e.g. "0.1.0" (lc_version).
func Version() string { return C.GoString(C.lc_version()) }

// ABIVersion is the library's C ABI version (lc_abi_version).
func ABIVersion() uint32 { return uint32(C.lc_abi_version()) }

// ValidateSummaryXML checks a summary against the XML grammar of SPEC §4
// (lc_summary_xml_validate). It returns nil or an *Error with StatusSummaryXMLSyntax,
// StatusSummaryXMLRoot, StatusSummaryXMLStructure or StatusSummaryXMLContent, diagnosed by
// lc_summary_xml_diagnose: Offset of the token that breaks a rule, its Line and Column, the
// Section, the Rule (X4.3 … X4.20) and what was Expected there.
func ValidateSummaryXML(xml []byte) error {
	p, n := bytesArg(xml)
	return diagnosed(C.lc_summary_xml_validate(p, n), summaryDiagnosis(xml))
}

// inputDiagnosis is the diagnose function of diagnosed for a compaction input wire document.
func inputDiagnosis(wire []byte) func(*C.lc_diagnostic) C.lc_status {
	return func(d *C.lc_diagnostic) C.lc_status {
		p, n := bytesArg(wire)
		return C.lc_compaction_input_diagnose(p, n, d)
	}
}

// ValidateInput checks a compaction input wire document (SPEC §5) without keeping it
// (lc_compaction_input_validate). A failure is diagnosed by lc_compaction_input_diagnose: Location
// is the path of the failing value, e.g. "transcript[3].blocks[0].type".
func ValidateInput(wire []byte) error {
	p, n := bytesArg(wire)
	return diagnosed(C.lc_compaction_input_validate(p, n), inputDiagnosis(wire))
}

// Input is a validated compaction input (lc_compaction_input): immutable and safe for concurrent
// use. Release it with Close; a finalizer frees it if it becomes unreachable first, but do not rely
// on that (the garbage collector does not see the library's memory).
type Input struct {
	// mu guards ptr: methods hold it for reading during their C calls, Close takes it for writing,
	// so Close never frees a handle that another goroutine is using.
	mu  sync.RWMutex
	ptr *C.lc_compaction_input
	// origin is the map back to the source of an Input made by Conversion.Input (nil for
	// ParseInput): a round on it gives a *Compacted whose Messages rebuilds the source's list.
	origin *sourceMap
	// size is about the length of the input's encoding (its wire document's, or its transcript's):
	// the first buffer of an encoding (encoded).
	size int
}

// encoded is the two-call pattern (SPEC A3.2) of an encoding call(buf, cap, &n): the first call
// gets a buffer of guess bytes, which saves the size query when the bytes fit (for an encoding the
// query costs about half the call); then a buffer of the size asked for.
func encoded(guess int, call func(p *C.uint8_t, c C.size_t, n *C.size_t) C.lc_status) ([]byte, C.lc_status) {
	var n C.size_t
	var rc C.lc_status
	if guess > 0 {
		buf := make([]byte, guess)
		p, c := bytesArg(buf)
		if rc = call(p, c, &n); rc == C.LC_OK {
			return buf[:int(n):int(n)], rc
		}
	} else {
		rc = call(nil, 0, &n)
	}
	// The same arguments give the same bytes (A3.6), so the next call fits; the bound only guards
	// against a misbehaving library.
	for try := 0; rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 3; try++ {
		buf := make([]byte, int(n))
		p, c := bytesArg(buf)
		if rc = call(p, c, &n); rc == C.LC_OK {
			return buf[:int(n):int(n)], rc
		}
	}
	return nil, rc
}

// outputGuess is the first buffer for the canonical encoding of a document of about size bytes,
// capped at maxBytes. The encoding is rarely longer (E7.6 writes `<`, `>` and `&` in six bytes,
// but drops whitespace and writes the \u escapes of other characters as UTF-8): a little room,
// and a document that grows more gets the size query's exact buffer, as with no guess.
func outputGuess(size int, maxBytes uint64) int {
	guess := size + size/128 + 4096
	if uint64(guess) > maxBytes {
		return int(maxBytes)
	}
	return guess
}

// liveInputs counts the handles not yet freed (read by the tests of the finalizer path).
var liveInputs atomic.Int64

// ParseInput decodes and validates a compaction input wire document (SPEC §5,
// lc_compaction_input_parse). A failure is diagnosed as by ValidateInput.
func ParseInput(wire []byte) (*Input, error) {
	p, n := bytesArg(wire)
	var h *C.lc_compaction_input
	if err := diagnosed(C.lc_compaction_input_parse(p, n, &h), inputDiagnosis(wire)); err != nil {
		return nil, err
	}
	in := &Input{ptr: h, size: len(wire)}
	liveInputs.Add(1)
	runtime.SetFinalizer(in, (*Input).Close)
	return in, nil
}

// Close releases the handle (lc_compaction_input_free). It waits for calls in progress on other
// goroutines, is idempotent, and always returns nil.
func (in *Input) Close() error {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	h := in.ptr
	in.ptr = nil
	in.mu.Unlock()
	if h != nil {
		C.lc_compaction_input_free(h)
		liveInputs.Add(-1)
		runtime.SetFinalizer(in, nil)
	}
	return nil
}

// acquire returns the live handle with the read lock held; release must follow the C calls.
func (in *Input) acquire() (*C.lc_compaction_input, error) {
	if in == nil {
		return nil, ErrClosed
	}
	in.mu.RLock()
	if in.ptr == nil {
		in.mu.RUnlock()
		return nil, ErrClosed
	}
	return in.ptr, nil
}

func (in *Input) release() {
	in.mu.RUnlock()
	// The finalizer must not run while C uses the handle: keep in reachable past every call.
	runtime.KeepAlive(in)
}

// EncodeWithin returns the exact wire bytes to send to the summarising model: the canonical
// encoding of the input (SPEC §7), with old tool results stubbed when that is needed to fit
// maxBytes (lc_compaction_input_encode_within). StatusInputTooLarge when nothing fits.
func (in *Input) EncodeWithin(maxBytes uint64) ([]byte, error) {
	h, err := in.acquire()
	if err != nil {
		return nil, err
	}
	defer in.release()
	out, rc := encoded(outputGuess(in.size, maxBytes), func(p *C.uint8_t, c C.size_t, n *C.size_t) C.lc_status {
		return C.lc_compaction_input_encode_within(h, C.uint64_t(maxBytes), p, c, n)
	})
	return out, check(rc)
}

// ValidateOutput checks one summariser reply against this input (SPEC §6,
// lc_compaction_output_validate) and returns the summary XML: the exact text of the replacement
// user message. outputTokens is the output usage the provider reported (0 when none);
// maxOutputBytes the byte limit for the reply (0 rejects every reply). A failure is diagnosed by
// lc_compaction_output_diagnose: byte and token limits fill Limit and Actual; an identity
// mismatch names the first differing field in Location ("basis.revision"); a failure of the
// summary itself has Location "summary" and offsets, lines and columns into the decoded summary.
func (in *Input) ValidateOutput(output []byte, outputTokens, maxOutputBytes uint64) ([]byte, error) {
	h, err := in.acquire()
	if err != nil {
		return nil, err
	}
	defer in.release()
	op, on := bytesArg(output)
	// The summary is never longer than the reply (O6.4): one call with a buffer of that size. A
	// second call with the size asked for only guards against a misbehaving library.
	buf := make([]byte, len(output))
	var n C.size_t
	for try := 0; ; try++ {
		bp, bc := bytesArg(buf)
		rc := C.lc_compaction_output_validate(h, op, on, C.uint64_t(outputTokens),
			C.uint64_t(maxOutputBytes), bp, bc, &n)
		switch {
		case rc == C.LC_OK:
			return buf[:int(n):int(n)], nil
		case rc == C.LC_ERR_BUFFER_TOO_SMALL && try < 2:
			buf = make([]byte, int(n))
		default:
			return nil, diagnosed(rc, func(d *C.lc_diagnostic) C.lc_status {
				var sn C.size_t
				return C.lc_compaction_output_diagnose(h, op, on, C.uint64_t(outputTokens),
					C.uint64_t(maxOutputBytes), nil, 0, &sn, d)
			})
		}
	}
}

// CounterQuality is the quality of a token counter (SPEC P8.4). Other values mean unknown.
type CounterQuality int32

// Counter qualities, taken from the #defines of include/loopcompact.h.
const (
	QualityUnknown       CounterQuality = C.LC_COUNTER_QUALITY_UNKNOWN
	QualityExactProvider CounterQuality = C.LC_COUNTER_QUALITY_EXACT_PROVIDER
	QualityExactLocal    CounterQuality = C.LC_COUNTER_QUALITY_EXACT_LOCAL
	QualityHeuristic     CounterQuality = C.LC_COUNTER_QUALITY_HEURISTIC
)

// ValidateCompactionPolicy checks a compaction policy document (SPEC §8.1) for a counter of
// quality q (lc_compaction_policy_validate). A failure is diagnosed by
// lc_compaction_policy_diagnose: Location is the failing field ("RearmBelow") or the path of a
// JSON error.
func ValidateCompactionPolicy(doc []byte, q CounterQuality) error {
	p, n := bytesArg(doc)
	return diagnosed(C.lc_compaction_policy_validate(p, n, C.int32_t(q)), func(d *C.lc_diagnostic) C.lc_status {
		return C.lc_compaction_policy_diagnose(p, n, C.int32_t(q), d)
	})
}

// ValidateContextObservation checks a context observation policy document (SPEC §8.2) for a
// counter of quality q (lc_context_observation_validate), diagnosed by
// lc_context_observation_diagnose.
func ValidateContextObservation(doc []byte, q CounterQuality) error {
	p, n := bytesArg(doc)
	return diagnosed(C.lc_context_observation_validate(p, n, C.int32_t(q)), func(d *C.lc_diagnostic) C.lc_status {
		return C.lc_context_observation_diagnose(p, n, C.int32_t(q), d)
	})
}

// ValidateContextConfig checks a context configuration document (SPEC §8.3,
// lc_context_config_validate). A failing nested policy gives that policy's status (301–308,
// 321–323). A failure is diagnosed by lc_context_config_diagnose: Location names the option or
// capability ("CounterCapability") or the nested policy's field ("Compaction.RearmBelow").
func ValidateContextConfig(doc []byte) error {
	p, n := bytesArg(doc)
	return diagnosed(C.lc_context_config_validate(p, n), func(d *C.lc_diagnostic) C.lc_status {
		return C.lc_context_config_diagnose(p, n, d)
	})
}

// ContextLimits are a model's context limits in tokens; 0 means not known (lc_context_limits).
type ContextLimits struct {
	WindowTokens    uint64
	MaxInputTokens  uint64
	MaxOutputTokens uint64
}

// ResolvedLimits are the limits computed by ResolveLimits (lc_resolved_limits).
type ResolvedLimits struct {
	ReservedOutput uint64 // the output reservation applied
	RawInputLimit  uint64 // the input limit before the safety margin
	InputLimit     uint64 // the input limit to measure occupancy against
}

// ResolveLimits resolves the input limit of a model for a policy's reservedOutput and
// safetyMargin (SPEC L9.1, lc_context_limits_resolve). StatusLimitsUnknown when no usable limit
// results.
func ResolveLimits(limits ContextLimits, reservedOutput, safetyMargin uint64) (ResolvedLimits, error) {
	cl := C.lc_context_limits{
		window_tokens:     C.uint64_t(limits.WindowTokens),
		max_input_tokens:  C.uint64_t(limits.MaxInputTokens),
		max_output_tokens: C.uint64_t(limits.MaxOutputTokens),
	}
	var out C.lc_resolved_limits
	rc := C.lc_context_limits_resolve(cl, C.uint64_t(reservedOutput), C.uint64_t(safetyMargin), &out)
	if err := check(rc); err != nil {
		return ResolvedLimits{}, err
	}
	return ResolvedLimits{
		ReservedOutput: uint64(out.reserved_output),
		RawInputLimit:  uint64(out.raw_input_limit),
		InputLimit:     uint64(out.input_limit),
	}, nil
}

// OccupancyBasisPoints is floor(used * 10000 / limit), capped at 10000 (SPEC L9.2,
// lc_occupancy_basis_points). StatusOccupancyZeroLimit when limit is 0.
func OccupancyBasisPoints(used, limit uint64) (uint16, error) {
	var out C.uint16_t
	if err := check(C.lc_occupancy_basis_points(C.uint64_t(used), C.uint64_t(limit), &out)); err != nil {
		return 0, err
	}
	return uint16(out), nil
}

// Level is a context pressure level (SPEC L9.3).
type Level int32

// Pressure levels, taken from the #defines of include/loopcompact.h.
const (
	LevelUnknown   Level = C.LC_PRESSURE_UNKNOWN // only if the library failed internally
	LevelNormal    Level = C.LC_PRESSURE_NORMAL
	LevelCompact   Level = C.LC_PRESSURE_COMPACT
	LevelHardLimit Level = C.LC_PRESSURE_HARD_LIMIT
)

// PressureLevel returns the pressure level for occupancy basis points (SPEC L9.3,
// lc_pressure_level). Pass the level returned for the previous measurement as previous.
func PressureLevel(previous Level, occupancy uint16, automatic bool, compactAt, rearmBelow uint16) Level {
	return Level(C.lc_pressure_level(C.int32_t(previous), C.uint16_t(occupancy), C.bool(automatic),
		C.uint16_t(compactAt), C.uint16_t(rearmBelow)))
}

// CheckReplacement checks that the request rebuilt after a compaction fits: inputTokens must be
// below inputLimit (SPEC L9.4, lc_replacement_check). StatusSummaryTooLarge otherwise.
func CheckReplacement(inputTokens, inputLimit uint64) error {
	return check(C.lc_replacement_check(C.uint64_t(inputTokens), C.uint64_t(inputLimit)))
}

// Fingerprint is a request fingerprint: SHA-256 of the canonical bytes of a request (SPEC §10).
type Fingerprint [FingerprintLen]byte

// String is the fingerprint in lower-case hex, as in the wire documents.
func (f Fingerprint) String() string { return hex.EncodeToString(f[:]) }

// RequestFingerprint computes the fingerprint of a request-fingerprint document (SPEC §10,
// lc_request_fingerprint). A failure is diagnosed by lc_request_fingerprint_diagnose: Location
// names the failing field ("Model.BaseURL").
func RequestFingerprint(doc []byte) (Fingerprint, error) {
	var out Fingerprint
	p, n := bytesArg(doc)
	rc := C.lc_request_fingerprint(p, n, (*C.uint8_t)(unsafe.Pointer(&out[0])))
	if err := diagnosed(rc, func(d *C.lc_diagnostic) C.lc_status {
		var scratch Fingerprint
		return C.lc_request_fingerprint_diagnose(p, n, (*C.uint8_t)(unsafe.Pointer(&scratch[0])), d)
	}); err != nil {
		return Fingerprint{}, err
	}
	return out, nil
}
