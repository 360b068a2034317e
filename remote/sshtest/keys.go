package sshtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"fmt"
	"os"

	"golang.org/x/crypto/ssh"
)

// keyTypes are the host key types every lab host gets, as OpenSSH names
// their files (ssh_host_<type>_key). An array, so no caller can change it.
var keyTypes = [...]string{"ed25519", "ecdsa", "rsa"}

// newKey generates a private key of the given OpenSSH type. RSA is 2048
// bits: strong enough for a throwaway loopback host and several times
// faster to generate than 3072, which matters for 32-host labs.
func newKey(typ string) (crypto.Signer, error) {
	switch typ {
	case "ed25519":
		_, k, err := ed25519.GenerateKey(rand.Reader)
		return k, err
	case "ecdsa":
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "rsa":
		return rsa.GenerateKey(rand.Reader, 2048)
	}
	return nil, fmt.Errorf("unknown key type %q", typ)
}

// writeKey writes k in OpenSSH private key format (0600) and its public
// half next to it (path + ".pub"), as ssh-keygen would.
func writeKey(path string, k crypto.Signer) (ssh.PublicKey, error) {
	block, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", path, err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	pub, err := ssh.NewPublicKey(k.Public())
	if err != nil {
		return nil, fmt.Errorf("public key of %s: %w", path, err)
	}
	if err := os.WriteFile(path+".pub", ssh.MarshalAuthorizedKey(pub), 0o644); err != nil {
		return nil, err
	}
	return pub, nil
}
