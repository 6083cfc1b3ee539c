package main

// Run with -race by scripts/test-go-module: the binding from many goroutines, one Input shared,
// and Close while calls are in flight.

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

func TestRun(t *testing.T) {
	stdout := os.Stdout
	os.Stdout, _ = os.Open(os.DevNull)
	defer func() { os.Stdout = stdout }()
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentUse(t *testing.T) {
	in, err := lc.ParseInput([]byte(wire))
	if err != nil {
		t.Fatal(err)
	}
	reply := []byte(`{"version":1,` + identity + `,"summary":"` + strings.ReplaceAll(summary, "<", `\u003c`) + `"}`)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				if err := lc.ValidateSummaryXML([]byte(summary)); err != nil {
					errs <- err
					return
				}
				var e *lc.Error
				if err := lc.ValidateSummaryXML([]byte(rejected)); !errors.As(err, &e) || e.Line != 3 {
					errs <- err
					return
				}
				s, err := in.ValidateOutput(reply, 40, 1<<20)
				if errors.Is(err, lc.ErrClosed) {
					return // closed by goroutine 0 below
				}
				if err != nil || string(s) != summary {
					errs <- err
					return
				}
				if g == 0 && i == 150 {
					in.Close()
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
