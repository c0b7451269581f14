# shellcheck shell=sh
# Sourced by ./mvnw and ./agent-tools: points JAVA_HOME at a JDK 25 or newer.
# The default `java` on many machines is older (17 here), and the project is compiled for Java 25, so the
# wrapper and the launcher pick a JDK themselves instead of asking every user to set JAVA_HOME.
# Reads each candidate's `release` file rather than starting a JVM, to keep start-up cheap.

agent_tools_jdk_major() {
  # prints the feature version of the JDK at $1 (0 when unknown)
  if [ -f "$1/release" ]; then
    sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9]*\).*/\1/p' "$1/release" | head -n 1
  else
    echo 0
  fi
}

agent_tools_find_jdk() {
  if [ -n "${JAVA_HOME-}" ] && [ "$(agent_tools_jdk_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
    return 0
  fi
  for candidate in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25* /usr/lib/jvm/* "$HOME"/.sdkman/candidates/java/* \
      "$HOME"/.jdks/* /opt/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    if [ -x "$candidate/bin/java" ] && [ "$(agent_tools_jdk_major "$candidate")" -ge 25 ] 2>/dev/null; then
      JAVA_HOME=$candidate
      export JAVA_HOME
      return 0
    fi
  done
  if command -v java >/dev/null 2>&1; then
    on_path=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    if [ "$(agent_tools_jdk_major "$on_path")" -ge 25 ] 2>/dev/null; then
      JAVA_HOME=$on_path
      export JAVA_HOME
      return 0
    fi
  fi
  echo "agent-tools needs JDK 25 or newer: none found (JAVA_HOME=${JAVA_HOME-unset}). Install Temurin 25 and set JAVA_HOME." >&2
  return 1
}

# ./mvnw runs under `set -f` (no globbing); the search needs globs, so lift it for the call and restore it.
case $- in *f*) agent_tools_noglob=1; set +f ;; *) agent_tools_noglob=0 ;; esac
agent_tools_find_jdk || exit 1
[ "$agent_tools_noglob" = 0 ] || set -f
