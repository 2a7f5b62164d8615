// The client program's channels: a publisher's and a consumer's opened on the current connection,
// and a consumer's deliveries handed to the harness (bodies, or counts at most every 20 ms).
package main

import (
	"encoding/base64"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func (c *client) openPublisher(handle int) error {
	c.mu.Lock()
	entry, conn := c.publishers[handle], c.conn
	c.mu.Unlock()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if entry.confirms {
		if err := ch.Confirm(false); err != nil {
			return err
		}
	}
	watchChannel(ch)
	c.mu.Lock()
	entry.ch, entry.tracker = ch, nil
	if entry.confirms {
		entry.tracker = newConfirmTracker(ch)
	}
	c.mu.Unlock()
	return nil
}

func (c *client) openConsumer(handle int) error {
	c.mu.Lock()
	entry, conn, generation := c.consumers[handle], c.conn, c.generation
	c.mu.Unlock()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if entry.prefetch > 0 {
		if err := ch.Qos(entry.prefetch, 0, false); err != nil {
			return err
		}
	}
	watchChannel(ch)
	deliveries, err := ch.Consume(entry.queue, "", !entry.manual, false, false, false, nil)
	if err != nil {
		return err
	}
	c.mu.Lock()
	entry.ch = ch
	c.mu.Unlock()
	go c.deliver(handle, entry, generation, ch, deliveries)
	return nil
}

// countsEvery is how often a consumer that only counts (bodies false) tells its count at most: the
// Python programs' outbox flushes as often (OUTBOX_STALE_NS). One line per delivery kept the
// harness's thread reading a line for every message.
const countsEvery = 20 * time.Millisecond

// counter tells a consumer's count at most every countsEvery, and what is left once that long has passed.
type counter struct {
	mu      sync.Mutex
	handle  int
	pending int
	told    time.Time
	timer   *time.Timer
}

func (n *counter) add(count int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pending += count
	if wait := countsEvery - time.Since(n.told); wait > 0 {
		if n.timer == nil {
			n.timer = time.AfterFunc(wait, n.flush)
		}
		return
	}
	n.tell()
}

func (n *counter) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.timer = nil
	n.tell()
}

// tell emits what was counted since the last line (under mu).
func (n *counter) tell() {
	if n.pending == 0 {
		return
	}
	emit(map[string]interface{}{"ev": "delivered", "consumer": n.handle, "count": n.pending, "atNs": nowNs()})
	n.pending, n.told = 0, time.Now()
}

// deliver hands deliveries over as they come, every one already waiting in the same line (a consumer
// that only counts: its count, at most every countsEvery).
func (c *client) deliver(handle int, entry *consumer, generation int, ch *amqp.Channel, deliveries <-chan amqp.Delivery) {
	counted := &counter{handle: handle}
	for first := range deliveries {
		c.sawDelivery(first.Body)
		batch := []amqp.Delivery{first}
	more:
		for len(batch) < 512 {
			select {
			case next, ok := <-deliveries:
				if !ok {
					break more
				}
				c.sawDelivery(next.Body)
				batch = append(batch, next)
			default:
				break more
			}
		}
		if !entry.bodies {
			if entry.manual {
				for _, d := range batch {
					d.Ack(false)
				}
			}
			counted.add(len(batch))
			continue
		}
		messages := make([]map[string]interface{}, len(batch))
		c.mu.Lock()
		for i, d := range batch {
			c.nextTag++
			c.tags[c.nextTag] = tagRef{generation: generation, ch: ch, tag: d.DeliveryTag}
			messages[i] = map[string]interface{}{"tag": c.nextTag, "body": base64.StdEncoding.EncodeToString(d.Body), "redelivered": d.Redelivered}
		}
		c.mu.Unlock()
		emit(map[string]interface{}{"ev": "deliveries", "consumer": handle, "messages": messages})
	}
}
