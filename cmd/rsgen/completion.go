package main

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts ask rsgen what fits the words typed, which
// urfave/cli answers (App.EnableBashCompletion): copies of v2's, which its
// Go package does not ship. fish's is written by v2 from the definitions.
var (
	//go:embed completion/rsgen.bash
	bashCompletion string
	//go:embed completion/rsgen.zsh
	zshCompletion string
)

// completeFlag is the last word of the scripts' questions.
const completeFlag = "--generate-bash-completion"

// completeArgs answers the scripts for cmd: its flags after a word that
// begins with -; else nothing, so that the shell completes file names (v2
// would offer "help h"), but the shells of completion.
func completeArgs(cmd *cli.Command) cli.BashCompleteFunc {
	flags := cli.DefaultCompleteWithFlags(cmd)
	return func(c *cli.Context) {
		if n := len(os.Args); n > 2 && strings.HasPrefix(os.Args[n-2], "-") {
			flags(c)
		} else if cmd.Name == "completion" {
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
			shell, err := oneArg(c, "shell: bash, zsh or fish", "for example: source <(rsgen completion bash)")
			if err != nil {
				return err
			}
			script := map[string]string{"bash": bashCompletion, "zsh": zshCompletion}[shell]
			if shell == "fish" {
				if script, err = c.App.ToFishCompletion(); err != nil {
					return err
				}
				script = strings.ReplaceAll(script, "`", "") // the backquotes around value names: `URL`
			}
			if script == "" {
				return usageErr("give bash, zsh or fish", "no completion for the shell %q", shell)
			}
			_, err = fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}
