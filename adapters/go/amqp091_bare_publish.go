// Bare publish (`amqp091-client --bare-publish ...`): the library alone, no protocol and no
// harness code in the timed path - the other side of the harness-overhead check of amqp091-go,
// with the command line and records of scripts/bare-publish.js: one connection with the profile's
// settings (the table in amqp091_client.go), one channel, plain publishes, then one round trip.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// bareOptions: what a bare program's --options says (the profile; the harness loop's backoff for recovery).
type bareOptions struct {
	Profile string  `json:"profile"`
	Backoff backoff `json:"backoff"`
}

func bareOptionsOf(text string) (bareOptions, error) {
	var chosen bareOptions
	if err := json.Unmarshal([]byte(text), &chosen); err != nil {
		return chosen, fmt.Errorf("--options must be a JSON object: %v", err)
	}
	return chosen, nil
}

// profile is the client program's settings of the profile chosen (its defaults when none is).
func (o bareOptions) profile() profile {
	if p, ok := profiles[o.Profile]; ok {
		return p
	}
	return profiles["defaults"]
}

// bareURL is the broker the bare programs use: AMQP_URL, never argv (credentials stay out of a process list).
func bareURL() string {
	if url := os.Getenv("AMQP_URL"); url != "" {
		return url
	}
	return "amqp://guest:guest@127.0.0.1:5672"
}

func barePublish(args []string) error {
	flags := flag.NewFlagSet("bare-publish", flag.ContinueOnError)
	queue := flags.String("queue", "", "an existing queue")
	messages := flags.Int("messages", 20000, "messages per timed round")
	size := flags.Int("size", 256, "message size in bytes")
	warmup := flags.Int("warmup", -1, "untimed messages first (default: --messages)")
	serve := flags.Bool("serve", false, "one timed round per \"run\" line on stdin")
	declare := flags.Bool("declare", false, "a temporary queue of its own, deleted at the end")
	options := flags.String("options", "{}", `{"profile":"defaults"|"normalised"}`)
	flags.String("client", "amqp091-go", "the client (only amqp091-go here)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *queue == "" && !*declare {
		return fmt.Errorf("--queue NAME is required (or --declare for a temporary queue)")
	}
	if *warmup < 0 {
		*warmup = *messages
	}
	chosen, err := bareOptionsOf(*options)
	if err != nil {
		return err
	}
	p, url := chosen.profile(), bareURL()
	conn, err := amqp.DialConfig(url, amqp.Config{Heartbeat: p.heartbeat, Dial: amqp.DefaultDial(p.connectTimeout)})
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if *declare {
		*queue = fmt.Sprintf("amqp-bench.bare.%d.%d", os.Getpid(), nanotime())
		if _, err := ch.QueueDeclare(*queue, false, false, false, false, amqp.Table{"x-max-length": int32(2 * (*messages + *warmup))}); err != nil {
			return err
		}
		defer ch.QueueDelete(*queue, false, false, false)
	} else if _, err := ch.QueueDeclarePassive(*queue, false, false, false, false, nil); err != nil {
		return err
	}
	body := []byte(strings.Repeat("a", *size))
	batch := func(count int) error {
		for i := 0; i < count; i++ {
			if err := ch.PublishWithContext(context.Background(), "", *queue, false, false, amqp.Publishing{Body: body, DeliveryMode: amqp.Transient}); err != nil {
				return err
			}
		}
		return ch.ExchangeDeclarePassive("amq.direct", "direct", true, false, false, false, nil)
	}
	round := func(number int) error {
		started := time.Now()
		if err := batch(*messages); err != nil {
			return err
		}
		seconds := time.Since(started).Seconds()
		record := map[string]interface{}{"messages": *messages, "message_size_bytes": *size, "warmup_messages": *warmup, "seconds": seconds, "msgs_per_sec": float64(*messages) / seconds}
		if number > 0 {
			record["round"] = number
		}
		line, _ := json.Marshal(record)
		fmt.Println(string(line))
		return nil
	}
	if *warmup > 0 {
		if err := batch(*warmup); err != nil {
			return err
		}
	}
	if !*serve {
		return round(0)
	}
	fmt.Printf("{\"ready\":true,\"warmup_messages\":%d}\n", *warmup)
	scanner := bufio.NewScanner(os.Stdin)
	for number := 1; scanner.Scan(); number++ {
		command := strings.TrimSpace(scanner.Text())
		if command == "" {
			number--
			continue
		}
		if command != "run" {
			return fmt.Errorf("unknown command %q on stdin; expected \"run\"", command)
		}
		if err := round(number); err != nil {
			return err
		}
	}
	return nil
}
