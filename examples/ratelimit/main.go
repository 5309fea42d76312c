// Command ratelimit serves kit behind a per-client token-bucket limiter
// plugged in through kit.Config.Middleware: a client that sends more than
// its share gets 429 in kit's error shape, with Retry-After.
//
//	go run ./examples/ratelimit --rate 5 --burst 10
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/collectionkit/kit/examples/ratelimit/limiter"
	"github.com/collectionkit/kit/kit"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	rate := flag.Float64("rate", 5, "requests per second per client")
	burst := flag.Int("burst", 10, "burst size per client")
	schemas := flag.String("schemas", "examples/schemas", "schemas folder")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	lim := limiter.New(*rate, *burst)
	k, err := kit.Open(ctx, kit.Config{
		SQLitePath: "ratelimit.db",
		Schemas:    os.DirFS(*schemas),
		Middleware: []func(http.Handler) http.Handler{lim.Middleware},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()

	mux := http.NewServeMux()
	mux.Handle("/api/", k.Handler())
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("ratelimit: %g req/s, burst %d per client, on http://%s/api", *rate, *burst, ln.Addr())
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
