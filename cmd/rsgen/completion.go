package main

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

// The scripts of bash and zsh ask rsgen what fits the words typed:
// urfave/cli answers --generate-bash-completion (App.EnableBashCompletion)
// from the same flag definitions as the help. They are rsgen's own copies
// of urfave/cli's autocomplete scripts, because the library does not ship
// them in its Go package (they are files of its repository), and its bash
// script needs the bash-completion package (_get_comp_words_by_ref),
// which a CI image or a fresh machine lacks. fish's is the library's,
// written from the flag definitions (App.ToFishCompletion).
var (
	//go:embed completion/rsgen.bash
	bashCompletion string
	//go:embed completion/rsgen.zsh
	zshCompletion string
)

// completeFlag is the last word with which the scripts ask rsgen what
// fits the words before it.
const completeFlag = "--generate-bash-completion"

// completeArgs answers the scripts for cmd: its flags after a word that
// begins with -, as urfave/cli does (which reads os.Args too); else the
// shells for completion, and nothing for the other commands, whose
// arguments are files, so that the shell completes their names (urfave/cli
// would offer "help h", which hid them).
func completeArgs(cmd *cli.Command) cli.BashCompleteFunc {
	flags := cli.DefaultCompleteWithFlags(cmd)
	return func(c *cli.Context) {
		if n := len(os.Args); n > 2 && strings.HasPrefix(os.Args[n-2], "-") {
			flags(c)
			return
		}
		if cmd.Name == "completion" {
			fmt.Fprintln(c.App.Writer, "bash\nzsh\nfish")
		}
	}
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a script that completes rsgen in bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: source <(rsgen completion bash), in ~/.bashrc\n" +
			"zsh:  source <(rsgen completion zsh), in ~/.zshrc after compinit\n" +
			"fish: rsgen completion fish > ~/.config/fish/completions/rsgen.fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErr("for example: source <(rsgen completion bash)", "give one shell: bash, zsh or fish")
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(c.App.Writer, strings.ReplaceAll(script, "`", "")) // the backquotes around value names: `URL`
			default:
				return usageErr("give bash, zsh or fish", "no completion for the shell %q", shell)
			}
			return nil
		},
	}
}
