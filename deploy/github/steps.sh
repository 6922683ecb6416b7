#!/usr/bin/env bash
# The steps of deploy/github/paperbrief.yml, one function each, so that they can be read,
# run and tested outside GitHub (tests/test_deploy.py runs them against a local bare
# repository standing in for the reader's). Usage: steps.sh STEP
#
#   restore-home     the data home from the data branch (empty on the first run)
#   apply-feedback   👍/👎 from feedback.txt and from issues labelled paperbrief-feedback
#   sync-zotero      the papers of $ZOTERO_LIBRARY as 👍 (only what is new is added)
#   run              today's digest; the exit code goes to $GITHUB_OUTPUT as status
#   publish-blog     copy the digest into blog/$POSTS_DIR, commit and push it
#   save-home        the data home as one commit on the data branch (force-pushed)
#   keep-alive       re-enable this workflow (GitHub disables the schedule of a public
#                    repository after 60 days without activity)
#
# Environment: PAPERBRIEF_HOME, DATA_BRANCH (default paperbrief-data), GIT_TOKEN (the
# token to push with, given only to the steps that push), GITHUB_OUTPUT, GITHUB_REPOSITORY.
set -euo pipefail

DATA_BRANCH="${DATA_BRANCH:-paperbrief-data}"
FEEDBACK_FILE="${FEEDBACK_FILE:-feedback.txt}"
FEEDBACK_LABEL="${FEEDBACK_LABEL:-paperbrief-feedback}"
home="${PAPERBRIEF_HOME:?set PAPERBRIEF_HOME}"

# git with the push token for this one command only (checkout runs with
# persist-credentials: false, so no other step, pip's build scripts included, can push).
git_authed() {
  if [ -n "${GIT_TOKEN:-}" ]; then
    local basic
    basic=$(printf 'x-access-token:%s' "$GIT_TOKEN" | base64 | tr -d '\n')
    git -c "http.extraheader=AUTHORIZATION: basic $basic" "$@"
  else
    git "$@"
  fi
}

identity() {
  git config user.name "paperbrief"
  git config user.email "paperbrief@users.noreply.github.com"
}

# The data home travels as one gzip'd tar cut into parts of PART_SIZE: GitHub refuses a
# file over 100 MB in a push (and warns over 50 MB), and a store passes that size within
# weeks of daily runs (listings, vectors, full texts, LLM answers).
PART_SIZE="${PART_SIZE:-45M}"
PARTS=home.tar.gz.part-

restore_home() {
  mkdir -p "$home"
  if git_authed fetch --quiet --depth=1 origin "$DATA_BRANCH" 2>/dev/null; then
    local scratch
    scratch=$(mktemp -d)
    git archive FETCH_HEAD | tar -x -C "$scratch"
    cat "$scratch/$PARTS"* | tar -xz -C "$home"
    rm -rf "$scratch"
    echo "data home restored from $DATA_BRANCH ($(git log -1 --format=%cs FETCH_HEAD))"
  else
    echo "no $DATA_BRANCH branch yet: starting with an empty data home"
  fi
  chmod 700 "$home"
}

# One signal per line: "<arXiv id> up|down|save|hide|read [note …]" (or the signal first,
# as in an issue title "👍 2605.22817"); # starts a comment.
apply_line() {
  local id signal note
  read -r id signal note <<<"$1" || true
  case "$id" in up | down | save | hide | read | 👍 | 👎) local swap="$id"; id="$signal"; signal="$swap" ;; esac
  [ -n "$id" ] && [ -n "$signal" ] || return 0
  case "$signal" in
    up | down | save | hide | read) ;;
    👍) signal=up ;;
    👎) signal=down ;;
    *) echo "skipped (unknown signal '$signal'): $1"; return 0 ;;
  esac
  if [ -n "$note" ]; then
    paperbrief feedback "$id" "--$signal" --note "$note" || echo "skipped: $1"
  else
    paperbrief feedback "$id" "--$signal" || echo "skipped: $1"
  fi
}

apply_feedback() {
  local applied=0
  if [ -f "$FEEDBACK_FILE" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      line="${line%%#*}"
      [ -n "${line//[[:space:]]/}" ] || continue
      apply_line "$line"
      applied=$((applied + 1))
    done <"$FEEDBACK_FILE"
    if [ "$applied" -gt 0 ]; then
      # The signals are in the store now (which the data branch keeps): empty the inbox,
      # keeping its comments, so nothing is applied twice.
      grep '^#' "$FEEDBACK_FILE" >"$FEEDBACK_FILE.new" || true
      mv "$FEEDBACK_FILE.new" "$FEEDBACK_FILE"
      identity
      git add "$FEEDBACK_FILE"
      git commit --quiet -m "paperbrief: $applied feedback signal(s) applied"
      git_authed push --quiet origin "HEAD:${GITHUB_REF_NAME:-main}"
    fi
  fi
  # Issues titled like a feedback line ("up 2605.22817", "👎 2605.22817 off topic"),
  # labelled paperbrief-feedback: applied, then closed.
  if command -v gh >/dev/null 2>&1 && [ -n "${GH_TOKEN:-}" ]; then
    gh issue list --label "$FEEDBACK_LABEL" --state open --json number,title \
      --jq '.[] | "\(.number)\t\(.title)"' | while IFS=$'\t' read -r number title; do
        apply_line "$title"
        gh issue close "$number" --comment "applied by run ${GITHUB_RUN_ID:-local}"
      done
  fi
  echo "feedback: $applied line(s) from $FEEDBACK_FILE"
}

sync_zotero() {
  # A library that cannot be read (Zotero down, a revoked key) costs the day nothing: the
  # run goes on with the feedback it has, and the next run imports what is new.
  paperbrief feedback import "${ZOTERO_LIBRARY:?set ZOTERO_LIBRARY}" \
    || echo "::warning::the Zotero library could not be read; the next run tries again"
}

run_digest() {
  local status=0
  paperbrief run --out digests || status=$?
  echo "status=$status" >>"${GITHUB_OUTPUT:-/dev/null}"
  case "$status" in
    # 0 published; 8 published with fallbacks (the digest says which parts); 7 written,
    # a delivery failed or is unknown (retried / reported by the next run): all three
    # have a digest to publish. 4: no announcement today (arXiv holiday).
    0 | 4 | 7 | 8) echo "paperbrief run exited $status" ;;
    *) echo "paperbrief run failed with exit $status" >&2; return "$status" ;;
  esac
}

publish_blog() {
  local posts="blog/${POSTS_DIR:-content/posts}"
  compgen -G "digests/*.md" >/dev/null || { echo "no digest to publish"; return 0; }
  mkdir -p "$posts"
  cp digests/*.md "$posts/"
  cd blog
  identity
  git add -A
  if git diff --cached --quiet; then echo "post already published"; return 0; fi
  git commit --quiet -m "arXiv digest $(date -u +%F)"
  git_authed push --quiet
}

save_home() {
  # One commit holding the data home as it is now, force-pushed: the branch stays the
  # size of one store (a history of SQLite files would grow by the whole file each day).
  # The run's lock files are not data.
  local scratch tree commit git_dir
  git_dir=$(git rev-parse --absolute-git-dir)
  scratch=$(mktemp -d)
  mkdir "$scratch/parts"
  tar -C "$home" --exclude=./locks --exclude='./*/locks' -cf - . | gzip -6 \
    | split -b "$PART_SIZE" -d -a 3 - "$scratch/parts/$PARTS"
  GIT_INDEX_FILE="$scratch/index" git --git-dir="$git_dir" --work-tree="$scratch/parts" \
    -C "$scratch/parts" add --all --force -- .
  tree=$(GIT_INDEX_FILE="$scratch/index" git --git-dir="$git_dir" write-tree)
  rm -rf "$scratch"
  commit=$(git -c user.name=paperbrief -c user.email=paperbrief@users.noreply.github.com \
    commit-tree "$tree" -m "paperbrief data home, $(date -u +%FT%TZ)")
  git_authed push --quiet --force origin "$commit:refs/heads/$DATA_BRANCH"
  echo "data home saved to $DATA_BRANCH ($(git ls-tree -r --long "$tree" | awk '{s+=$4} END {print s}') bytes" \
    "in $(git ls-tree "$tree" | wc -l) part(s))"
}

keep_alive() {
  gh api --method PUT \
    "repos/${GITHUB_REPOSITORY:?}/actions/workflows/${WORKFLOW_FILE:-paperbrief.yml}/enable" \
    && echo "workflow kept enabled"
}

case "${1:-}" in
  restore-home) restore_home ;;
  apply-feedback) apply_feedback ;;
  sync-zotero) sync_zotero ;;
  run) run_digest ;;
  publish-blog) publish_blog ;;
  save-home) save_home ;;
  keep-alive) keep_alive ;;
  *) sed -n '2,14p' "$0"; exit 2 ;;
esac
