// Package share is the one writer of a team pool (package team): an
// explicit share, never a write by itself. The model proposes an entry
// (Propose, behind the share_memory tool); the proposal waits as a file of
// the personal memory, memory/proposals/TEAM/NAME.md, which recall, doctor
// and the dreamer never read as an entry, until a person approves it
// (Approve, perhaps with an edited description or body: the entry is
// written into the pool through a store opened on the pool, by the
// dreamer's own create with its name, type and duplicate checks, then
// given shared_by and shared) or rejects it (Reject: nothing is left).
// Share copies a person's own knowledge entry into a pool, their own act.
//
// Every step refuses a secret — whatever package redact would change in a
// name, type, description or body — naming the field and the kind of
// secret, and writes nothing: a refused proposal never exists on disk, and
// approving a proposal edited by hand scans it again. A teammate's entry
// is never overwritten. The write lock file the pool's store takes is kept
// out of the project's `git status` (approve.go says how).
//
// Map:
//
//	doc.go        this map
//	proposals.go  Shares, Pool, Proposal and its file and id (TEAM/NAME): Propose, List, Get, Reject; Refusal
//	approve.go    Approve and Share: the entry written into the pool, who shared it (Who), the lock file kept out of git status
//	secrets.go    the secret check of every field of a share, in words ("what looks like a password")
package share
