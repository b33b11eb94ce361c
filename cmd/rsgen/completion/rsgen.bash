# bash completion for rsgen: add to ~/.bashrc
#   source <(rsgen completion bash)
# or save it as /etc/bash_completion.d/rsgen.
# rsgen itself lists the commands and flags that fit what is typed
# (urfave/cli's --generate-bash-completion); bash completes file names
# where it lists none. Needs no bash-completion package.
_rsgen_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" opts
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _rsgen_complete rsgen
