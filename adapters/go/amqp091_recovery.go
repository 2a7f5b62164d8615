// The harness's recovery loop over amqp091-go (the library has none): `ensure` and `recover`
// reconnect with the harness loop's backoff, and `recover` times the round trip to a probe
// delivered back, inside the program, as the bare recovery program does.
package main

import (
	"fmt"
	"math/rand"
	"time"
)

// ensure is the harness's loop: attempts with its backoff until the deadline.
func (c *client) ensure(cmd command) {
	attempts, err := c.reconnect(cmd.DeadlineMs)
	if err != nil {
		failure(cmd.ID, "timeout", err.Error(), "", "")
		return
	}
	reply(cmd.ID, map[string]interface{}{"attempts": attempts, "connectedNs": nowNs()})
}

// reconnect dials with the harness loop's backoff until the deadline; the attempts it took (0: it was up).
func (c *client) reconnect(deadlineMs int) (int, error) {
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	if up {
		return 0, nil
	}
	deadline := time.Now().Add(time.Duration(deadlineMs) * time.Millisecond)
	var last error
	for attempt := 1; ; attempt++ {
		c.mu.Lock()
		old := c.conn
		c.mu.Unlock()
		if old != nil {
			old.Close()
		}
		if last = c.open(attempt); last == nil {
			return attempt, nil
		}
		delay := backoffDelay(c.backoff, attempt)
		if time.Now().Add(delay).After(deadline) {
			return attempt, fmt.Errorf("could not reconnect within %d ms (%d attempts): %v", deadlineMs, attempt, last)
		}
		time.Sleep(delay)
	}
}

// recover is `ensure`, then a probe published to the consumer's own queue and taken from its delivery,
// timed here from the moment this goroutine took the command up (what --bare-recovery times).
func (c *client) recover(cmd command) {
	started := nowNs()
	attempts, err := c.reconnect(cmd.DeadlineMs)
	if err != nil {
		failure(cmd.ID, "timeout", err.Error(), "", "")
		return
	}
	connected := nowNs()
	c.mu.Lock()
	entry := c.consumers[cmd.Consumer]
	c.mu.Unlock()
	if entry == nil {
		failure(cmd.ID, "invalid", fmt.Sprintf("no consumer %d to prove the recovery with", cmd.Consumer), "", "")
		return
	}
	out := &probe{marker: []byte("probe-" + nowNs()), back: make(chan string, 1)}
	c.mu.Lock()
	c.probe = out
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.probe = nil
		c.mu.Unlock()
	}()
	if code, text, kind := c.publish(cmd.Publisher, "", entry.queue, out.marker, false); code != "" {
		c.settle(cmd.ID, code, text, kind)
		return
	}
	timer := time.NewTimer(time.Duration(cmd.RoundTripBound) * time.Millisecond)
	defer timer.Stop()
	select {
	case back := <-out.back:
		reply(cmd.ID, map[string]interface{}{"attempts": attempts, "connectedNs": connected, "recoveryStartedNs": started, "recoveredNs": back})
	case <-timer.C:
		failure(cmd.ID, "timeout", fmt.Sprintf("the probe did not come back within %d ms", cmd.RoundTripBound), "", "")
	}
}

// sawDelivery times the probe of `recover` as the library handed it over.
func (c *client) sawDelivery(body []byte) {
	c.mu.Lock()
	out := c.probe
	c.mu.Unlock()
	if out != nil && string(body) == string(out.marker) {
		select {
		case out.back <- nowNs():
		default:
		}
	}
}

func backoffDelay(b backoff, attempt int) time.Duration {
	base := b.InitialDelayMs
	for i := 1; i < attempt && base < b.MaxDelayMs; i++ {
		base *= b.Factor
	}
	if base > b.MaxDelayMs {
		base = b.MaxDelayMs
	}
	spread := base * b.Jitter
	ms := base + (rand.Float64()*2-1)*spread
	if ms < 0 {
		ms = 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}
