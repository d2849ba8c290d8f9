// Command handover-registry is the program in the simulated cloud's
// registry container (see simulate/cloudserver/registry): it pushes the
// images it was built with into its registry, then serves the registry
// and ECR's API name over TLS, logging every registry request as a JSON
// line on standard output.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
	"github.com/handover-sh/handover/simulate/cloudserver/registry"
)

// seeds are --seed FILE=REPOSITORY:TAG values.
type seeds []string

func (s *seeds) String() string     { return strings.Join(*s, ",") }
func (s *seeds) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var o registry.Options
	var listen, certFile, keyFile, caFile, tokenKeyFile string
	var seed seeds
	flag.StringVar(&listen, "listen", ":443", "address to serve on")
	flag.StringVar(&o.Host, "host", "", "the registry's name")
	flag.StringVar(&o.APIHost, "api-host", "", "ECR's API name, relayed to --api-upstream")
	flag.StringVar(&o.APIUpstream, "api-upstream", "", "the cloud's APIs over TLS (https://host:port): ECR's API, or ACR's token exchange")
	flag.StringVar(&caFile, "ca", "", "PEM certificate(s) the upstream's certificate must chain to")
	flag.StringVar(&certFile, "cert", "", "PEM certificate of this server (both names)")
	flag.StringVar(&keyFile, "key", "", "PEM private key of this server")
	flag.StringVar(&tokenKeyFile, "token-key", "", "the key the cloud's registry passwords are signed with")
	flag.StringVar(&o.User, "user", "", "the user name of the cloud's tokens (default ECR's, AWS)")
	flag.StringVar(&o.Service, "service", "", "the service the registry's challenge names (default ECR's)")
	flag.StringVar(&o.Scheme, "scheme", registry.SchemeECR, "how callers log in: ecr (basic, the cloud's tokens) or acr (ACR's token service; its exchange is relayed to --api-upstream)")
	flag.Var(&seed, "seed", "FILE=REPOSITORY:TAG: push the image of a docker-save archive at start (repeatable)")
	flag.Parse()
	if err := run(o, listen, certFile, keyFile, caFile, tokenKeyFile, seed); err != nil {
		log.Fatalf("handover-registry: %v", err)
	}
}

func run(o registry.Options, listen, certFile, keyFile, caFile, tokenKeyFile string, seed seeds) error {
	var err error
	if o.TokenKey, err = ecrtoken.ReadKey(tokenKeyFile); err != nil {
		return err
	}
	if caFile != "" {
		raw, err := os.ReadFile(caFile)
		if err != nil {
			return err
		}
		o.Roots = x509.NewCertPool()
		if !o.Roots.AppendCertsFromPEM(raw) {
			return fmt.Errorf("--ca %s: no certificate", caFile)
		}
	}
	enc := json.NewEncoder(os.Stdout)
	o.Log = func(r registry.Record) { _ = enc.Encode(r) }
	s, err := registry.New(o)
	if err != nil {
		return err
	}
	for _, v := range seed {
		file, ref, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("--seed %q: want FILE=REPOSITORY:TAG", v)
		}
		if err := s.PushArchive(file, ref); err != nil {
			return err
		}
		log.Printf("pushed %s as %s/%s", file, o.Host, ref)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("--cert/--key: %w", err)
	}
	srv := &http.Server{Addr: listen, Handler: s, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if o.APIHost != "" {
		log.Printf("serving %s and %s on %s", o.Host, o.APIHost, listen)
	} else {
		log.Printf("serving %s (%s's login) on %s", o.Host, o.Scheme, listen)
	}
	if err := srv.ListenAndServeTLS("", ""); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
