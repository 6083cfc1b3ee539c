package main

// A compaction round (SPEC R15.12) through the installed library: lc.Compact with a scripted model
// that first leaves out a section, then answers in a Markdown fence.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

func runRound(in *lc.Input) error {
	replies := []string{rejected, "```xml\n" + summary + "\n```\n"}
	var log []string
	res, err := lc.Compact(context.Background(), in,
		func(_ context.Context, req lc.SummaryRequest) (lc.SummaryReply, error) {
			if req.Attempt > len(replies) {
				return lc.SummaryReply{}, errors.New("no scripted reply left")
			}
			return lc.SummaryReply{Text: replies[req.Attempt-1], OutputTokens: 40, Stop: lc.StopEnd}, nil
		},
		lc.CompactOptions{KeepLast: 1, OnAttempt: func(a lc.Attempt) {
			entry := a.Status.Name()
			if a.Removed != 0 {
				entry += " removed " + a.Removed.String()
			}
			log = append(log, entry)
		}})
	if err != nil {
		return err
	}
	c, ok := res.(*lc.Compacted)
	if !ok {
		return fmt.Errorf("round: %+v", res)
	}
	if err := in.VerifyReplacement(c.Cut, c.Replacement); err != nil {
		return err
	}
	fmt.Printf("round: %s; cut %d, %d-byte replacement verified\n", strings.Join(log, ", "), c.Cut, len(c.Replacement))
	return nil
}
