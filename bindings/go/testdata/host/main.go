// Command host is a program of a Go project that depends on the loopcompact module:
// scripts/test-go-module copies it into a fresh module outside the checkout, points the module at
// bindings/go with `go mod edit -replace`, and builds it against an installed library
// (-tags loopcompact_pkgconfig, and -tags loopcompact_static); scripts/release --check builds it
// against the release's module zip and its prebuilt static libraries (the default). It prints one
// line per step; the scripts compare them.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

const (
	identity = `"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"`
	wire = `{"version":1,` + identity + `,"transcript":[` +
		`{"role":"user","blocks":[{"type":"text","text":"list the files"}]},` +
		`{"role":"assistant","blocks":[{"type":"tool_use","id":"c1","name":"ls","input":{}}]},` +
		`{"role":"tool","blocks":[{"type":"text","text":"a.go b.go"}],"tool_use_id":"c1","is_error":false},` +
		`{"role":"assistant","blocks":[{"type":"text","text":"two files"}]}],"max_summary_tokens":64}`
	summary = `<conversation_summary><goal>List the files.</goal><constraints/><decisions/>` +
		`<state>ls found a.go &amp; b.go.</state><open_items/></conversation_summary>`
	// The same summary without <constraints/>, over three lines.
	rejected = "<conversation_summary>\n<goal>List the files.</goal>\n<decisions/><state>done</state><open_items/>\n</conversation_summary>"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "host:", err)
		os.Exit(1)
	}
}

func run() error {
	if lc.ABIVersion() != lc.HeaderABIVersion {
		return fmt.Errorf("ABI %d, header %d", lc.ABIVersion(), lc.HeaderABIVersion)
	}
	fmt.Printf("loopcompact %s, ABI %d, linked %s\n", lc.Version(), lc.ABIVersion(), lc.LinkMode)

	err := lc.ValidateSummaryXML([]byte(rejected))
	var e *lc.Error
	if !errors.As(err, &e) || !errors.Is(err, lc.StatusSummaryXMLStructure) || !errors.Is(err, lc.ClassRetry) {
		return fmt.Errorf("rejected summary: %v", err)
	}
	fmt.Printf("rejected: %s at line %d, column %d, section %s, expected %s (%s)\n",
		e.Reason, e.Line, e.Column, e.Section, e.Expected, e.Rule)
	if !strings.Contains(e.RetryMessage(), "line 3, column 1") {
		return fmt.Errorf("retry message %q", e.RetryMessage())
	}

	in, err := lc.ParseInput([]byte(wire))
	if err != nil {
		return err
	}
	defer in.Close()
	if err := in.CheckPairing(); err != nil {
		return err
	}
	cut, err := in.SafeCut(1)
	if err != nil {
		return err
	}
	if err := in.CheckCut(2); !errors.Is(err, lc.StatusCutUnsafe) {
		return fmt.Errorf("cut 2: %v", err)
	}
	reply := `{"version":1,` + identity + `,"summary":"` + strings.ReplaceAll(summary, "<", `\u003c`) + `"}`
	got, err := in.ValidateOutput([]byte(reply), 40, 1<<20)
	if err != nil {
		return err
	}
	state, err := lc.SummarySectionText(got, lc.SectionState)
	if err != nil {
		return err
	}
	fmt.Printf("accepted: %d bytes, state %q, safe cut %d\n", len(got), state, cut)
	if err := runRound(in); err != nil {
		return err
	}
	return runConversion()
}
