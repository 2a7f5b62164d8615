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
	var chosen struct {
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal([]byte(*options), &chosen); err != nil {
		return fmt.Errorf("--options must be a JSON object: %v", err)
	}
	p, ok := profiles[chosen.Profile]
	if !ok {
		p = profiles["defaults"]
	}
	url := os.Getenv("AMQP_URL")
	if url == "" {
		url = "amqp://guest:guest@127.0.0.1:5672"
	}
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
