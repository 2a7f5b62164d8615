// Publisher confirms through Channel.NotifyPublish, for every confirmed publish but a publish_run's.
// amqp091-go 1.5.0's deferred API loses a confirm now and then: PublishWithDeferredConfirmWithContext
// writes the publish (channel.go:1438) and registers its delivery tag only afterwards (:1464,
// confirms.go:42-47 and :128-135), and an ack that comes back in between finds no tag and is
// dropped (confirms.go:141-147; rabbitmq/amqp091-go#182, fixed in 1.8.0): its Wait never returns.
// NotifyPublish loses none: confirms.One and confirms.Multiple hand every ack and nack to the
// listeners, one per delivery tag and in tag order (confirms.go:52-57, 75-100), whether or not the
// publish was registered yet, and the channel's shutdown closes the listeners (channel.go:147-149,
// confirms.go:104-115). Here each publish's tag is registered before it is written, so its ack
// finds it however fast it comes. publish_run keeps the deferred API: its figures, and the #182
// finding it reports, are what amqp091-go 1.5.0 does with that API.
package main

import (
	"context"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"
)

// confirmed is the broker's word on one publish, or the close of its channel before it came.
type confirmed struct {
	ack    bool
	closed bool
	reason *amqp.Error // the close's error as the library gave it to the channel; nil: closed by this program
}

// confirmTracker follows the confirms of one publisher channel in confirm mode.
type confirmTracker struct {
	ch *amqp.Channel
	// send: one publish at a time on ch, whichever goroutine makes it (the publisher's, `recover`'s),
	// so the tag read before a publish is the one the library gives it. Never held by listen.
	send      sync.Mutex
	listening bool // NotifyPublish registered (under send), at the first tracked publish
	closes    chan *amqp.Error
	// mu guards pending, closed and reason; never held while calling into the library, whose reader
	// goroutine holds its confirms lock while it hands a confirm to listen (confirms.go:55-57, 76-77).
	mu      sync.Mutex
	pending map[uint64]chan confirmed
	closed  bool
	reason  *amqp.Error
}

func newConfirmTracker(ch *amqp.Channel) *confirmTracker {
	return &confirmTracker{ch: ch, pending: map[uint64]chan confirmed{}}
}

// publish registers the next delivery tag, then writes the publish; the channel returned gets its confirm.
func (t *confirmTracker) publish(exchange, key string, message amqp.Publishing) (<-chan confirmed, error) {
	t.send.Lock()
	defer t.send.Unlock()
	if !t.listening {
		t.listening = true
		// The shutdown gives it the close's error and closes it before the listeners (channel.go:111-126, 147-149).
		t.closes = t.ch.NotifyClose(make(chan *amqp.Error, 1))
		go t.listen(t.ch.NotifyPublish(make(chan amqp.Confirmation, 1024)))
	}
	tag := t.ch.GetNextPublishSeqNo()
	settled := make(chan confirmed, 1)
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		settled <- confirmed{closed: true, reason: t.reason}
		return settled, nil
	}
	t.pending[tag] = settled
	t.mu.Unlock()
	if err := t.ch.PublishWithContext(context.Background(), exchange, key, false, false, message); err != nil {
		t.mu.Lock()
		delete(t.pending, tag)
		t.mu.Unlock()
		return nil, err
	}
	return settled, nil
}

// sendUntracked runs a publish of the deferred API (publish_run's) in turn with the tracked ones.
func (t *confirmTracker) sendUntracked(publish func() (*amqp.DeferredConfirmation, error)) (*amqp.DeferredConfirmation, error) {
	t.send.Lock()
	defer t.send.Unlock()
	return publish()
}

// listen settles each confirm's publish; once the library closes the listener (the channel or its
// connection closed), every publish still pending is settled as closed, with the close's reason.
func (t *confirmTracker) listen(confirms <-chan amqp.Confirmation) {
	for confirmation := range confirms {
		t.mu.Lock()
		settled, ok := t.pending[confirmation.DeliveryTag]
		delete(t.pending, confirmation.DeliveryTag)
		t.mu.Unlock()
		// Not pending: a publish_run's publish on the same channel, awaited through its DeferredConfirmation.
		if ok {
			settled <- confirmed{ack: confirmation.Ack}
		}
	}
	// Closed by now (channel.go:124-126, before :148 closed the listeners), holding the close's error if it had one.
	reason := <-t.closes
	t.mu.Lock()
	t.closed, t.reason = true, reason
	pending := t.pending
	t.pending = map[uint64]chan confirmed{}
	t.mu.Unlock()
	for _, settled := range pending {
		settled <- confirmed{closed: true, reason: reason}
	}
}

// outcomeOf is the protocol's word on a tracked publish: done, nacked, or a fault (its channel closed).
func (c *client) outcomeOf(word confirmed) (string, string, string) {
	switch {
	case word.ack:
		return "", "", ""
	case word.closed:
		return c.closedOutcome(word.reason)
	}
	return "nacked", "basic.nack from the broker", ""
}

// closedOutcome is a confirm its channel's close settled: the close's own error where the library
// gave one (the connection's, the same the fault event tells, or the broker's channel.close),
// else the connection's fault if there is one, else the channel's close.
func (c *client) closedOutcome(reason *amqp.Error) (string, string, string) {
	if reason != nil {
		return "fault", reason.Error(), classify(reason)
	}
	c.mu.Lock()
	kind, text := c.outage[0], c.outage[1]
	c.mu.Unlock()
	if kind == "" {
		kind, text = "channel_closed", "channel closed before the confirm"
	}
	return "fault", text, kind
}
