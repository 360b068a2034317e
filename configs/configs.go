package configs

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed settings/*.yaml
var presets embed.FS

// PresetFile is a settings preset as written in configs/settings/NAME.yaml.
type PresetFile struct {
	Flavor         string
	Description    string
	ImportReplicas int
	Replicas       int
	Settings       []Setting // in file order
}

// Setting is one name = value pair of a preset.
type Setting struct{ Name, Value string }

// Presets lists the preset names.
func Presets() []string {
	entries, _ := fs.ReadDir(presets, "settings")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Preset reads the named preset.
func Preset(name string) (*PresetFile, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("preset %q: not a preset name (known: %s)", name, strings.Join(Presets(), ", "))
	}
	data, err := presets.ReadFile(path.Join("settings", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("no preset %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	var raw struct {
		Flavor         string    `yaml:"flavor"`
		Description    string    `yaml:"description"`
		ImportReplicas int       `yaml:"import_replicas"`
		Replicas       int       `yaml:"replicas"`
		Settings       yaml.Node `yaml:"settings"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("preset %s: %w", name, err)
	}
	p := &PresetFile{Flavor: raw.Flavor, Description: raw.Description, ImportReplicas: raw.ImportReplicas, Replicas: raw.Replicas}
	if raw.Settings.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("preset %s: settings: want a mapping", name)
	}
	for i := 0; i+1 < len(raw.Settings.Content); i += 2 {
		p.Settings = append(p.Settings, Setting{Name: raw.Settings.Content[i].Value, Value: raw.Settings.Content[i+1].Value})
	}
	return p, nil
}
