#compdef rsgen
# zsh completion for rsgen: add to ~/.zshrc (after compinit)
#   source <(rsgen completion zsh)
# or save it as _rsgen in a directory of $fpath. rsgen itself lists the
# commands and flags that fit what is typed (urfave/cli's
# --generate-bash-completion); zsh completes file names where it lists none.
_rsgen() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _rsgen rsgen
