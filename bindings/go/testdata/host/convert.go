package main

// A conversion (SPEC §16) through the installed library: an Anthropic request with its system
// parameter, converted, compacted keeping the last message, and the new list in Anthropic's format.

import (
	"context"
	"fmt"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

const (
	anthropicSystem   = `"Be brief."`
	anthropicMessages = `[{"role":"user","content":"Hi."},{"role":"assistant","content":[{"type":"text","text":"Hello."}]},` +
		`{"role":"user","content":[{"type":"text","text":"Plan my day.","cache_control":{"type":"ephemeral"}}]}]`
)

func runConversion() error {
	conv, err := lc.FromAnthropic([]byte(anthropicMessages), []byte(anthropicSystem))
	if err != nil {
		return err
	}
	defer conv.Close()
	in, err := conv.Input(lc.InputOptions{Provider: "anthropic", Model: "claude", MaxSummaryTokens: 64, Revision: 1})
	if err != nil {
		return err
	}
	defer in.Close()
	res, err := lc.Compact(context.Background(), in,
		func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
			return lc.SummaryReply{Text: summary, OutputTokens: 40, Stop: lc.StopEnd}, nil
		}, lc.CompactOptions{KeepLast: 1})
	if err != nil {
		return err
	}
	c, ok := res.(*lc.Compacted)
	if !ok {
		return fmt.Errorf("conversion round: %+v", res)
	}
	list, err := c.Messages([]byte(anthropicMessages))
	if err != nil {
		return err
	}
	s, _ := c.SourceCut()
	var losses []string
	for _, l := range conv.Losses() {
		losses = append(losses, fmt.Sprintf("%d:%s", l.SourceIndex, l.Name))
	}
	fmt.Printf("converted: source index %v, losses %v; cut %d (source %d), %d-byte list\n",
		conv.SourceIndex(), losses, c.Cut, s, len(list))
	return nil
}
