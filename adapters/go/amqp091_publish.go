// Publishing through amqp091-go: one message, plain or with its confirm tracked (amqp091_confirms.go),
// and a timed run of many on the deferred API (counted in the program, never per message over the pipe).
package main

import (
	"context"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// publishTarget is a publisher's channel and its confirm tracker (nil without confirms) now, or why there is none.
func (c *client) publishTarget(handle int) (*amqp.Channel, *confirmTracker, string, string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.up {
		return nil, nil, "fault", c.outage[1], c.outage[0]
	}
	entry := c.publishers[handle]
	if entry == nil || entry.ch == nil {
		return nil, nil, "unsupported", fmt.Sprintf("no open publisher %d", handle), ""
	}
	return entry.ch, entry.tracker, "", "", ""
}

func publishing(body []byte, persistent bool) amqp.Publishing {
	mode := amqp.Transient
	if persistent {
		mode = amqp.Persistent
	}
	return amqp.Publishing{Body: body, DeliveryMode: mode}
}

// publish sends one message: plain, handed to the socket; with confirms, through the tracker
// (NotifyPublish, amqp091_confirms.go), its confirm awaited: the broker's ack or nack, or the
// channel's close, always comes.
func (c *client) publish(handle int, exchange, key string, body []byte, persistent bool) (string, string, string) {
	settled, code, text, kind := c.publishTracked(handle, exchange, key, body, persistent)
	if code != "" || settled == nil {
		return code, text, kind
	}
	return c.outcomeOf(<-settled)
}

// publishTracked sends one message; with confirms, the channel returned gets its confirm (nil without).
func (c *client) publishTracked(handle int, exchange, key string, body []byte, persistent bool) (<-chan confirmed, string, string, string) {
	ch, tracker, code, text, kind := c.publishTarget(handle)
	if code != "" {
		return nil, code, text, kind
	}
	message := publishing(body, persistent)
	if tracker == nil {
		if err := ch.PublishWithContext(context.Background(), exchange, key, false, false, message); err != nil {
			return nil, "fault", err.Error(), classify(err)
		}
		return nil, "", "", ""
	}
	settled, err := tracker.publish(exchange, key, message)
	if err != nil {
		return nil, "fault", err.Error(), classify(err)
	}
	return settled, "", "", ""
}

// publishDeferred is publish_run's publish: with confirms, PublishWithDeferredConfirmWithContext,
// its confirm awaited for at most `confirmBound`. A confirm still unsettled at the bound is
// `unsettled`: amqp091-go 1.5.0 drops one now and then (rabbitmq/amqp091-go#182) and gives no word
// of its own for it; what a run of this API measures, and reports, is what the library does.
func (c *client) publishDeferred(handle int, exchange, key string, body []byte, confirmBound time.Duration) (string, string, string) {
	ch, tracker, code, text, kind := c.publishTarget(handle)
	if code != "" {
		return code, text, kind
	}
	message := publishing(body, false)
	if tracker == nil {
		if err := ch.PublishWithContext(context.Background(), exchange, key, false, false, message); err != nil {
			return "fault", err.Error(), classify(err)
		}
		return "", "", ""
	}
	confirmation, err := tracker.sendUntracked(func() (*amqp.DeferredConfirmation, error) {
		return ch.PublishWithDeferredConfirmWithContext(context.Background(), exchange, key, false, false, message)
	})
	if err != nil {
		return "fault", err.Error(), classify(err)
	}
	if confirmBound <= 0 {
		return c.awaitConfirm(ch, confirmation)
	}
	settled := make(chan [3]string, 1)
	go func() {
		code, text, kind := c.awaitConfirm(ch, confirmation)
		settled <- [3]string{code, text, kind}
	}()
	timer := time.NewTimer(confirmBound)
	defer timer.Stop()
	select {
	case outcome := <-settled:
		return outcome[0], outcome[1], outcome[2]
	case <-timer.C:
		// The waiting goroutine stays until the library settles it (a channel's close nacks it) or the program ends.
		return "unsettled", fmt.Sprintf("the confirm of delivery tag %d did not settle within %d ms", confirmation.DeliveryTag, confirmBound.Milliseconds()), ""
	}
}

// awaitConfirm waits for the broker's word on one publish of the deferred API.
func (c *client) awaitConfirm(ch *amqp.Channel, confirmation *amqp.DeferredConfirmation) (string, string, string) {
	if confirmation.Wait() {
		return "", "", ""
	}
	// amqp091-go 1.5 settles a closed channel's pending confirms as nacks (confirms.go:164-172, from channel.go:148).
	if ch.IsClosed() {
		return c.closedOutcome(nil)
	}
	return "nacked", "basic.nack from the broker", ""
}

// publishRun publishes `count` messages, each awaited; a confirm not settled within `publishBoundMs`
// (else `boundMs`) ends the run there, as it would leave a thread that awaits it waiting: the run
// names that publish (`unsettledPublish`) and makes no more.
func (c *client) publishRun(cmd command) {
	body := make([]byte, cmd.SizeBytes)
	for i := range body {
		body[i] = 'a'
	}
	bound := cmd.PublishBoundMs
	if bound <= 0 {
		bound = cmd.BoundMs
	}
	histogram := latencyHistogram{}
	published, errorCount, unsettled := 0, 0, 0
	samples := []string{}
	started := nowNs()
	for i := 0; i < cmd.Count; i++ {
		t0 := nanotime()
		code, text, _ := c.publishDeferred(cmd.Publisher, cmd.Exchange, cmd.RoutingKey, body, time.Duration(bound)*time.Millisecond)
		if code == "unsettled" {
			unsettled = i + 1
			break
		}
		if code != "" {
			errorCount++
			if len(samples) < 5 {
				samples = append(samples, text)
			}
			c.mu.Lock()
			up := c.up
			c.mu.Unlock()
			if !up {
				errorCount += cmd.Count - i - 1
				break
			}
			continue
		}
		histogram.record(nanotime() - t0)
		published++
	}
	run := map[string]interface{}{
		"published": published, "errors": errorCount, "startedNs": started, "completedNs": nowNs(),
		"latencyUs": histogram.encode(), "errorSamples": samples,
	}
	if unsettled > 0 {
		run["unsettledPublish"] = unsettled
	}
	reply(cmd.ID, map[string]interface{}{"run": run})
}

func (c *client) flush(cmd command) {
	entry := c.publishers[cmd.Publisher]
	if entry == nil || entry.ch == nil {
		failure(cmd.ID, "fault", "not connected", "error", nowNs())
		return
	}
	if !entry.confirms {
		// A round trip on the publisher's own channel: the broker has taken what came before it.
		if err := entry.ch.ExchangeDeclarePassive("amq.direct", "direct", true, false, false, false, nil); err != nil {
			failure(cmd.ID, "fault", err.Error(), classify(err), nowNs())
			return
		}
	}
	reply(cmd.ID, nil)
}
