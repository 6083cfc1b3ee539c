package loopcompact_test

// Tests of the binding itself: status constants and errors, the Input lifecycle (Close, use after
// Close, concurrent use), buffer handling, and that every function of the header is wrapped.

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

const (
	testWire = `{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
		`"transcript":[{"role":"user","blocks":[{"type":"text","text":"hello"}]},` +
		`{"role":"tool","blocks":[{"type":"text","text":"a long tool result <with markup> that can be stubbed, a long tool result that can be stubbed"}],"tool_use_id":"t1","is_error":false},` +
		`{"role":"assistant","blocks":[{"type":"text","text":"done"}]}],` +
		`"max_summary_tokens":32}`
	testSummary = `<conversation_summary><goal>ship &amp; verify</goal><constraints></constraints>` +
		`<decisions></decisions><state>ready</state><open_items></open_items></conversation_summary>`
)

func testOutput() []byte {
	return []byte(`{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
		`"summary":"` + strings.ReplaceAll(testSummary, "<", `\u003c`) + `"}`)
}

// allStatuses lists every exported Status constant; TestStatusConstantsMatchHeader checks it against
// the header's #defines both ways.
var allStatuses = []lc.Status{
	lc.StatusOK, lc.StatusNullArgument, lc.StatusBufferTooSmall, lc.StatusLengthOverflow, lc.StatusInvalidArgument,
	lc.StatusPanic,
	lc.StatusInputWire, lc.StatusInputBasis, lc.StatusInputModel, lc.StatusInputRequestFingerprint,
	lc.StatusInputTranscript, lc.StatusInputMaxSummaryTokens, lc.StatusInputTooLarge,
	lc.StatusSummaryWire, lc.StatusSummaryIdentity, lc.StatusSummaryOutputShape, lc.StatusSummaryByteLimit,
	lc.StatusSummaryTokenUsage, lc.StatusSummaryTokenLimit, lc.StatusSummaryXMLSyntax, lc.StatusSummaryXMLRoot,
	lc.StatusSummaryXMLStructure, lc.StatusSummaryXMLContent, lc.StatusSummaryTooLarge,
	lc.StatusPolicyWire, lc.StatusPolicyCounterPolicy, lc.StatusPolicyCompactAt, lc.StatusPolicyRearmBelow,
	lc.StatusPolicyReservedOutput, lc.StatusPolicySafetyMargin, lc.StatusPolicyMaxSummaryTokens,
	lc.StatusPolicyCountTimeout, lc.StatusPolicyHustle,
	lc.StatusObservationWire, lc.StatusObservationReservedOutput, lc.StatusObservationSafetyMargin,
	lc.StatusObservationCountTimeout,
	lc.StatusContextWire, lc.StatusContextConflictingPolicy, lc.StatusContextMissingCounter,
	lc.StatusContextMissingInferenceCapability, lc.StatusContextMissingPolicy, lc.StatusContextInvalidCounter,
	lc.StatusContextInvalidInferenceCapability, lc.StatusContextIncompatibleCounter,
	lc.StatusLimitsUnknown, lc.StatusOccupancyZeroLimit,
	lc.StatusFingerprintWire, lc.StatusFingerprintSystemRevision, lc.StatusFingerprintToolPolicyRevision,
	lc.StatusFingerprintRuntimeContextRevision, lc.StatusFingerprintModel, lc.StatusFingerprintBasis,
	lc.StatusFingerprintCounterCapability, lc.StatusFingerprintInferenceCapability, lc.StatusFingerprintEncoding,
	lc.StatusPairingUnansweredCall, lc.StatusPairingOrphanResult, lc.StatusPairingDuplicateID,
	lc.StatusPairingDuplicateResult, lc.StatusCutUnsafe, lc.StatusCompactionNoProgress,
	lc.StatusCompactionThresholdUnreachable,
	lc.StatusReplyTruncated, lc.StatusReplyByteLimitUnreachable, lc.StatusReplacementEmptyHead,
	lc.StatusReplacementSummary, lc.StatusReplacementWire, lc.StatusReplacementPrefixChanged,
	lc.StatusReplacementTailChanged, lc.StatusReplacementAdjacentUser,
	lc.StatusConvertWire, lc.StatusConvertShape, lc.StatusConvertLoss,
}

func readHeader(t *testing.T) string {
	t.Helper()
	h, err := os.ReadFile("../../include/loopcompact.h")
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func TestStatusConstantsMatchHeader(t *testing.T) {
	header := map[string]lc.Status{}
	// Status defines are the LC_ constants documented with `N (reason "...")`.
	re := regexp.MustCompile(`(?m)^/\*\* (\d+) \(reason "[^"]*"\): .*\*/\n#define (LC_[A-Z0-9_]+) (\d+)$`)
	for _, m := range re.FindAllStringSubmatch(readHeader(t), -1) {
		v, _ := strconv.Atoi(m[3])
		header[m[2]] = lc.Status(v)
	}
	if len(header) < 50 {
		t.Fatalf("found only %d status defines in the header", len(header))
	}
	seen := map[string]bool{}
	for _, s := range allStatuses {
		name := s.Name()
		if v, ok := header[name]; !ok || v != s {
			t.Errorf("Go constant %d has name %s, header has %s = %d (present %v)", s, name, name, v, ok)
		}
		seen[name] = true
	}
	for name := range header {
		if !seen[name] {
			t.Errorf("header status %s has no Go constant", name)
		}
	}
}

// packageSource is the text of the package's non-test Go files.
func packageSource(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	return src.String()
}

// headerFunctions are the names of the functions include/loopcompact.h declares: an lc_
// identifier followed by "(" on a line that is not a comment or a preprocessor line (cbindgen
// writes each declaration on one line).
func headerFunctions(t *testing.T) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`\b(lc_[a-z_0-9]+)\(`)
	fns := map[string]bool{}
	for _, line := range strings.Split(readHeader(t), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "*") || strings.HasPrefix(line, "/") || strings.HasPrefix(line, "#") {
			continue
		}
		if m := decl.FindStringSubmatch(line); m != nil {
			fns[m[1]] = true
		}
	}
	return fns
}

// cgoCalls are the C functions the package's non-test files call: every call expression C.lc_…(…)
// of their syntax trees (a name in a comment or a string does not count).
func cgoCalls(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "C" && strings.HasPrefix(sel.Sel.Name, "lc_") {
					calls[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	return calls
}

// notCalled lists the header functions the package deliberately does not call, each with its
// reason. Empty: the package reaches every function of the C ABI.
var notCalled = map[string]string{}

// The name table (issue 26): every function of the header is called by the package, and the
// package calls nothing the header does not declare.
func TestEveryHeaderFunctionIsWrapped(t *testing.T) {
	header := headerFunctions(t)
	// 36 functions before the round, 5 of the round (SPEC §15).
	if len(header) < 41 || !header["lc_replacement_verify"] || !header["lc_version"] {
		t.Fatalf("found only %d functions in the header: %v", len(header), header)
	}
	calls := cgoCalls(t)
	for name := range header {
		if reason, ok := notCalled[name]; ok {
			if reason == "" || calls[name] {
				t.Errorf("%s: an exclusion needs a reason and no call", name)
			}
			continue
		}
		if !calls[name] {
			t.Errorf("%s is declared in the header but never called by the package", name)
		}
	}
	// C.lc_status(x) is a conversion to a header type, not a call.
	types := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^typedef [^;]*\b(lc_[a-z_0-9]+);|\bstruct (lc_[a-z_0-9]+)`).
		FindAllStringSubmatch(readHeader(t), -1) {
		types[m[1]+m[2]] = true
	}
	if !types["lc_status"] || !types["lc_diagnostic"] {
		t.Fatalf("found only the types %v in the header", types)
	}
	for name := range calls {
		if !header[name] && !types[name] {
			t.Errorf("the package calls %s, which the header does not declare", name)
		}
	}
}

func TestMeta(t *testing.T) {
	if v := lc.Version(); !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(v) {
		t.Errorf("Version() = %q", v)
	}
	if lc.ABIVersion() != lc.HeaderABIVersion {
		t.Errorf("ABIVersion() = %d, header says %d", lc.ABIVersion(), lc.HeaderABIVersion)
	}
	if got := lc.Status(12345).Name(); got != "LC_UNKNOWN_STATUS" {
		t.Errorf("unknown status name %q", got)
	}
	if lc.Status(12345).Reason() != "" || lc.Status(12345).Message() == "" {
		t.Errorf("unknown status reason/message")
	}
	if lc.StatusOK.Reason() != "" || lc.StatusSummaryXMLSyntax.Reason() != "xml_syntax" {
		t.Errorf("reasons")
	}
}

func TestErrorValues(t *testing.T) {
	err := lc.ValidateSummaryXML([]byte("<conversation_summary>"))
	var e *lc.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T %v", err, err)
	}
	if e.Status != lc.StatusSummaryXMLSyntax || e.Name != "LC_SUMMARY_XML_SYNTAX" || e.Reason != "xml_syntax" ||
		e.Message != lc.StatusSummaryXMLSyntax.Message() {
		t.Errorf("fields: %+v", e)
	}
	if !errors.Is(err, lc.StatusSummaryXMLSyntax) || errors.Is(err, lc.StatusSummaryXMLRoot) {
		t.Errorf("errors.Is against a Status")
	}
	if !errors.Is(err, &lc.Error{Status: lc.StatusSummaryXMLSyntax}) {
		t.Errorf("errors.Is against an *Error")
	}
	wrapped := errors.Join(errors.New("context"), err)
	if !errors.Is(wrapped, lc.StatusSummaryXMLSyntax) {
		t.Errorf("errors.Is through a wrapper")
	}
	if want := "loopcompact: LC_SUMMARY_XML_SYNTAX (xml_syntax): "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Error() = %q", err.Error())
	}
	// The message never echoes input bytes.
	secret := "<conversation_summary><goal>SECRET-TOKEN-1234</goal><bogus/>"
	if err := lc.ValidateSummaryXML([]byte(secret)); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error %v", err)
	}
	if err := lc.ValidateSummaryXML([]byte(testSummary)); err != nil {
		t.Errorf("valid summary: %v", err)
	}
}

func TestEmptySlicesAreTheEmptyBuffer(t *testing.T) {
	for _, b := range [][]byte{nil, {}, make([]byte, 0, 16)} {
		if !errors.Is(lc.ValidateSummaryXML(b), lc.StatusSummaryXMLRoot) {
			t.Errorf("empty summary %#v", b)
		}
		if !errors.Is(lc.ValidateInput(b), lc.StatusInputWire) {
			t.Errorf("empty input %#v", b)
		}
		if _, err := lc.RequestFingerprint(b); !errors.Is(err, lc.StatusFingerprintWire) {
			t.Errorf("empty fingerprint document: %v", err)
		}
	}
}

func TestInputLifecycle(t *testing.T) {
	in, err := lc.ParseInput([]byte(testWire))
	if err != nil {
		t.Fatal(err)
	}
	summary, err := in.ValidateOutput(testOutput(), 10, 1<<20)
	if err != nil || string(summary) != testSummary {
		t.Fatalf("ValidateOutput = %q, %v", summary, err)
	}
	if cap(summary) != len(summary) {
		t.Errorf("summary has spare capacity %d", cap(summary)-len(summary))
	}
	if err := in.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := in.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := in.ValidateOutput(testOutput(), 10, 1<<20); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("ValidateOutput after Close: %v", err)
	}
	if _, err := in.EncodeWithin(1 << 20); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("EncodeWithin after Close: %v", err)
	}
	var nilInput *lc.Input
	if _, err := nilInput.EncodeWithin(1); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("nil Input: %v", err)
	}
	if err := nilInput.Close(); err != nil {
		t.Errorf("nil Close: %v", err)
	}
}

func TestParseInputErrors(t *testing.T) {
	in, err := lc.ParseInput([]byte(`{"version":2}`))
	if in != nil || !errors.Is(err, lc.StatusInputWire) {
		t.Errorf("ParseInput = %v, %v", in, err)
	}
}

func TestInputDoesNotKeepCallerBytes(t *testing.T) {
	wire := []byte(testWire)
	in, err := lc.ParseInput(wire)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	before, err := in.EncodeWithin(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wire {
		wire[i] = 'X'
	}
	after, err := in.EncodeWithin(1 << 20)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("encoding changed after the caller's bytes were overwritten: %v", err)
	}
}

func TestEncodeWithin(t *testing.T) {
	in, err := lc.ParseInput([]byte(testWire))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	full, err := in.EncodeWithin(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(full, []byte(`\u003cwith markup\u003e`)) || cap(full) != len(full) {
		t.Errorf("canonical encoding %s", full)
	}
	exact, err := in.EncodeWithin(uint64(len(full)))
	if err != nil || !bytes.Equal(exact, full) {
		t.Errorf("at the exact size: %v", err)
	}
	fitted, err := in.EncodeWithin(uint64(len(full) - 1))
	if err != nil || len(fitted) >= len(full) || !bytes.Contains(fitted, []byte("[old tool result omitted for compaction]")) {
		t.Errorf("fitted %s, %v", fitted, err)
	}
	if _, err := in.EncodeWithin(10); !errors.Is(err, lc.StatusInputTooLarge) {
		t.Errorf("too small a limit: %v", err)
	}
	if _, err := in.EncodeWithin(0); !errors.Is(err, lc.StatusInputTooLarge) {
		t.Errorf("zero limit: %v", err)
	}
}

func TestValidateOutputErrors(t *testing.T) {
	in, err := lc.ParseInput([]byte(testWire))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cases := []struct {
		out       []byte
		tokens    uint64
		maxBytes  uint64
		want      lc.Status
		wantMatch string
	}{
		{testOutput(), 10, 0, lc.StatusSummaryByteLimit, ""},
		{testOutput(), 0, 1 << 20, lc.StatusSummaryTokenUsage, ""},
		{testOutput(), 33, 1 << 20, lc.StatusSummaryTokenLimit, ""},
		{nil, 10, 1 << 20, lc.StatusSummaryWire, ""},
		{bytes.Replace(testOutput(), []byte(`"revision":3`), []byte(`"revision":4`), 1), 10, 1 << 20, lc.StatusSummaryIdentity, ""},
		{bytes.Replace(testOutput(), []byte(`ready`), []byte(` `), 1), 10, 1 << 20, lc.StatusSummaryXMLContent, ""},
	}
	for i, c := range cases {
		if _, err := in.ValidateOutput(c.out, c.tokens, c.maxBytes); !errors.Is(err, c.want) {
			t.Errorf("case %d: want %s, got %v", i, c.want, err)
		}
	}
}

func TestLimitsAndPressure(t *testing.T) {
	got, err := lc.ResolveLimits(lc.ContextLimits{WindowTokens: 100, MaxOutputTokens: 10}, 20, 5)
	if err != nil || got != (lc.ResolvedLimits{ReservedOutput: 10, RawInputLimit: 90, InputLimit: 85}) {
		t.Errorf("ResolveLimits = %+v, %v", got, err)
	}
	if _, err := lc.ResolveLimits(lc.ContextLimits{}, 1, 1); !errors.Is(err, lc.StatusLimitsUnknown) {
		t.Errorf("unknown limits: %v", err)
	}
	if bp, err := lc.OccupancyBasisPoints(1<<63, 1<<64-1); err != nil || bp != 5000 {
		t.Errorf("occupancy = %d, %v", bp, err)
	}
	if _, err := lc.OccupancyBasisPoints(1, 0); !errors.Is(err, lc.StatusOccupancyZeroLimit) {
		t.Errorf("zero limit: %v", err)
	}
	if l := lc.PressureLevel(lc.LevelCompact, 7000, true, 8000, 6000); l != lc.LevelCompact {
		t.Errorf("pressure %d", l)
	}
	if l := lc.PressureLevel(lc.LevelNormal, 7000, true, 8000, 6000); l != lc.LevelNormal {
		t.Errorf("pressure %d", l)
	}
	if err := lc.CheckReplacement(100, 100); !errors.Is(err, lc.StatusSummaryTooLarge) {
		t.Errorf("replacement: %v", err)
	}
	if err := lc.CheckReplacement(99, 100); err != nil {
		t.Errorf("replacement: %v", err)
	}
}

func TestConcurrentUseOfOneInput(t *testing.T) {
	in, err := lc.ParseInput([]byte(testWire))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	want, err := in.EncodeWithin(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				got, err := in.EncodeWithin(1 << 20)
				if err != nil || !bytes.Equal(got, want) {
					errs <- errors.Join(errors.New("EncodeWithin differs"), err)
					return
				}
				s, err := in.ValidateOutput(testOutput(), 10, 1<<20)
				if err != nil || string(s) != testSummary {
					errs <- errors.Join(errors.New("ValidateOutput differs"), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Close while other goroutines use the handle: every call either succeeds or reports ErrClosed,
// and none touches freed memory (Close waits for calls in flight).
func TestCloseDuringConcurrentUse(t *testing.T) {
	for round := 0; round < 20; round++ {
		in, err := lc.ParseInput([]byte(testWire))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		bad := make(chan error, 8)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < 100; i++ {
					s, err := in.ValidateOutput(testOutput(), 10, 1<<20)
					if errors.Is(err, lc.ErrClosed) {
						return
					}
					if err != nil || string(s) != testSummary {
						bad <- err
						return
					}
				}
			}()
		}
		close(start)
		in.Close()
		wg.Wait()
		close(bad)
		for err := range bad {
			t.Errorf("round %d: %v", round, err)
		}
	}
}
