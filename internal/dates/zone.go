package dates

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LoadZone loads an IANA zone name ("Europe/Berlin", "Asia/Shanghai",
// "UTC"). Offsets and abbreviations ("+08:00", "CET") are refused: they
// carry no daylight-saving rules, so "tomorrow" would drift twice a year.
func LoadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("time zone %q: want an IANA name like Europe/Berlin", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: want an IANA name like Europe/Berlin or Asia/Shanghai: %w", name, err)
	}
	return loc, nil
}

// MachineZone is the machine's own zone, under its IANA name when one can
// be found (TZ, then /etc/localtime's link target, then /etc/timezone) so
// the prompt can say "Europe/Berlin" rather than "Local"; otherwise
// time.Local as it is.
func MachineZone() *time.Location {
	for _, name := range machineZoneNames() {
		if loc, err := time.LoadLocation(name); err == nil && sameZone(loc, time.Local) {
			return loc
		}
	}
	return time.Local
}

func machineZoneNames() []string {
	var names []string
	if tz, ok := os.LookupEnv("TZ"); ok {
		// TZ="" means UTC to the C library and to Go.
		if tz = strings.TrimPrefix(tz, ":"); tz == "" {
			return []string{"UTC"}
		} else if !filepath.IsAbs(tz) {
			return []string{tz}
		}
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if i := strings.LastIndex(target, "zoneinfo/"); i >= 0 {
			names = append(names, target[i+len("zoneinfo/"):])
		}
	}
	if b, err := os.ReadFile("/etc/timezone"); err == nil {
		names = append(names, strings.TrimSpace(string(b)))
	}
	return names
}

// sameZone checks two zones agree now and half a year from now, so a stale
// /etc/timezone never renames the zone Go actually uses.
func sameZone(a, b *time.Location) bool {
	now := time.Now()
	for _, t := range []time.Time{now, now.AddDate(0, 6, 0)} {
		_, oa := t.In(a).Zone()
		_, ob := t.In(b).Zone()
		if oa != ob {
			return false
		}
	}
	return true
}
