// Publishing through amqp091-go: one message, plain or with its confirm awaited within a bound,
// and a timed run of many (counted in the program, never per message over the pipe).
package main

import (
	"context"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// publish sends one message: plain, handed to the socket; with confirms, waits for the broker's word
// for at most `confirmBound` (0: as long as the library makes it wait). A confirm still unsettled
// at the bound is `unsettled`: amqp091-go gives no word of its own for a confirm it lost.
func (c *client) publish(handle int, exchange, key string, body []byte, persistent bool, confirmBound time.Duration) (string, string, string) {
	c.mu.Lock()
	up, outage := c.up, c.outage
	entry := c.publishers[handle]
	var ch *amqp.Channel
	if entry != nil {
		ch = entry.ch
	}
	c.mu.Unlock()
	if !up {
		return "fault", outage[1], outage[0]
	}
	if ch == nil {
		return "unsupported", fmt.Sprintf("no open publisher %d", handle), ""
	}
	mode := amqp.Transient
	if persistent {
		mode = amqp.Persistent
	}
	message := amqp.Publishing{Body: body, DeliveryMode: mode}
	if !entry.confirms {
		if err := ch.PublishWithContext(context.Background(), exchange, key, false, false, message); err != nil {
			return "fault", err.Error(), classify(err)
		}
		return "", "", ""
	}
	confirmation, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), exchange, key, false, false, message)
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

// awaitConfirm waits for the broker's word on one confirmed publish.
func (c *client) awaitConfirm(ch *amqp.Channel, confirmation *amqp.DeferredConfirmation) (string, string, string) {
	if confirmation.Wait() {
		return "", "", ""
	}
	// amqp091-go 1.5 settles a closed channel's pending confirms as nacks (confirms.go, deferredConfirmations.Close).
	if ch.IsClosed() {
		c.mu.Lock()
		kind, text := c.outage[0], c.outage[1]
		c.mu.Unlock()
		if kind == "" {
			kind, text = "channel_closed", "channel closed before the confirm"
		}
		return "fault", text, kind
	}
	return "nacked", "basic.nack from the broker", ""
}

// publishDeferred sends one confirmed publish without waiting for its confirm.
func (c *client) publishDeferred(cmd command) (*amqp.Channel, *amqp.DeferredConfirmation, string, string, string) {
	c.mu.Lock()
	up, outage := c.up, c.outage
	var ch *amqp.Channel
	if entry := c.publishers[cmd.Publisher]; entry != nil {
		ch = entry.ch
	}
	c.mu.Unlock()
	if !up {
		return nil, nil, "fault", outage[1], outage[0]
	}
	if ch == nil {
		return nil, nil, "unsupported", fmt.Sprintf("no open publisher %d", cmd.Publisher), ""
	}
	mode := amqp.Transient
	if cmd.Persistent {
		mode = amqp.Persistent
	}
	message := amqp.Publishing{Body: cmd.Body, DeliveryMode: mode}
	confirmation, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), cmd.Exchange, cmd.RoutingKey, false, false, message)
	if err != nil {
		return nil, nil, "fault", err.Error(), classify(err)
	}
	return ch, confirmation, "", "", ""
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
		code, text, _ := c.publish(cmd.Publisher, cmd.Exchange, cmd.RoutingKey, body, false, time.Duration(bound)*time.Millisecond)
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
