package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/providers"
	_ "github.com/handover-sh/handover/providers/all" // their faces are served
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// The providers' faces of the simulated cloud (cloudserver.Face): serve
// takes each one's flags and serves it beside the cloud's API when they
// ask for it.

// faces are the registered providers that have a face.
func faces() []cloudserver.Face {
	var out []cloudserver.Face
	for _, p := range providers.All() {
		if f, ok := providers.As[cloudserver.Face](p); ok {
			out = append(out, f)
		}
	}
	return out
}

// facesHelp are the faces' paragraphs of serve's help.
func facesHelp() string {
	var help string
	for _, f := range faces() {
		help += "\n\n" + f.FaceHelp()
	}
	return help
}

// faceFlags adds every face's flags to serve.
func faceFlags(serve *cobra.Command) []cloudserver.FaceFlags {
	var out []cloudserver.FaceFlags
	for _, f := range faces() {
		ff := f.FaceFlags(serve.Flags())
		for _, group := range ff.RequiredTogether() {
			serve.MarkFlagsRequiredTogether(group...)
		}
		out = append(out, ff)
	}
	return out
}

// askedFaces are the faces whose flags ask for them.
func askedFaces(all []cloudserver.FaceFlags) ([]cloudserver.FaceFlags, error) {
	var out []cloudserver.FaceFlags
	for _, f := range all {
		asked, err := f.Asked()
		if err != nil {
			return nil, err
		}
		if asked {
			out = append(out, f)
		}
	}
	return out, nil
}

// openFaces opens the faces asked for over the cloud; closeAll closes
// those opened, whether or not all were.
func openFaces(asked []cloudserver.FaceFlags, in cloudserver.FaceInput) (endpoints []cloudserver.Endpoint, closeAll func(), err error) {
	var closers []func() error
	closeAll = func() {
		for _, c := range closers {
			_ = c()
		}
	}
	for _, f := range asked {
		open, err := f.Open(in)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, open.Close)
		endpoints = append(endpoints, open.Endpoints...)
	}
	return endpoints, closeAll, nil
}

// serveAll serves every endpoint (the cloud's API, the faces') until ctx
// ends or one of them fails.
func serveAll(ctx context.Context, g *globals, endpoints []cloudserver.Endpoint) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(endpoints))
	for _, e := range endpoints {
		go func() {
			err := serveOn(ctx, g, e.Handler, e.Addrs, e.What, e.TLS)
			cancel()
			errs <- err
		}()
	}
	var err error
	for range endpoints {
		err = errors.Join(err, <-errs)
	}
	return err
}

// serveRegistry is the cloud's own registry: its name and the key of its
// tokens (the key a face's registry shares, as ECR's). A name needs the
// key; a key alone serves a face's.
func serveRegistry(host, keyPath string) (cloudserver.Registry, error) {
	if keyPath == "" {
		if host != "" {
			return cloudserver.Registry{}, errors.New("--registry needs --registry-token-key: the registry checks its tokens with that key")
		}
		return cloudserver.Registry{}, nil
	}
	key, err := ecrtoken.ReadKey(keyPath)
	if err != nil {
		return cloudserver.Registry{}, err
	}
	return cloudserver.Registry{Host: host, TokenKey: key}, nil
}
