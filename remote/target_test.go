package remote

import "testing"

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in               string
		name, user, host string
		port             int
		wantErr          bool
	}{
		{in: "db1=root@10.0.0.5:2222", name: "db1", user: "root", host: "10.0.0.5", port: 2222},
		{in: "user@host", name: "host", user: "user", host: "host"},
		{in: "host:22", name: "host", host: "host", port: 22},
		{in: "v6=[::1]:2200", name: "v6", host: "::1", port: 2200},
		{in: "alias", name: "alias", host: "alias"},
		{in: "h:x", wantErr: true},
		{in: "n=", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseTarget(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("%q: err %v", tt.in, err)
			continue
		}
		if err == nil && (got.Name != tt.name || got.User != tt.user || got.Host != tt.host || got.Port != tt.port) {
			t.Errorf("%q: %+v", tt.in, got)
		}
	}
}
