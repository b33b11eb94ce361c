// Command rsgen publishes a collection as ResourceSync documents.
//
// See README.md, or run "rsgen --help".
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/cmd/rsgen/internal/signals"
)

func main() {
	os.Exit(Main())
}

// Main is rsgen, returning its exit code (the testscripts' command rsgen).
func Main() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go onSignals(signals.Caught(), cancel, os.Stderr, os.Exit)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	signals.Stop()
	return code
}

// run runs the command line args with urfave/cli v2 and returns the exit
// code. rsgen adds flags after the arguments (flagsFirst), the flag meant
// by an unknown one (parseError) and the exit code of every error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:  "rsgen",
		Usage: "publish a collection as ResourceSync documents (ANSI/NISO Z39.99)",
		Description: "rsgen scans a file tree, hashes every file, and writes the documents a\n" +
			"ResourceSync Destination needs into a directory that any static host serves\n" +
			"as it is. 'rsgen help COMMAND' tells more of each command.\n\nEXIT CODES:\n" + exitCodes,
		Version:              version(),
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: true, // completion.go
		// A pattern may hold a comma ({a,b}); --host splits its own list.
		DisableSliceFlagSeparator: true,
		Commands:                  []*cli.Command{buildCommand(), initCommand(), validateCommand(), serveCommand(), notifyCommand(), versionCommand(), completionCommand(), manCommand()},
		Action: func(c *cli.Context) error {
			if c.Args().First() == "help" {
				return showHelp(c)
			}
			if c.NArg() > 0 {
				return unknownCommand(c.App, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		// printError prints errors: cli's handler would call os.Exit.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return parseError(nil, app.Flags, err)
	}
	cli.VersionPrinter = func(c *cli.Context) { printVersion(c.App.Writer) }
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help", DisableDefaultText: true}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return parseError(cmd, cmd.Flags, err)
		}
		cmd.BashComplete = completeArgs(cmd)
		// v2 groups a command's flags before it adds --help to them.
		cmd.Flags = append(cmd.Flags, cli.HelpFlag)
		describeFlags(cmd.Flags)
	}
	if args[len(args)-1] != completeFlag { // urfave/cli completes only the words as typed, without a "--"
		var given map[string]bool
		var err error
		if args, given, err = flagsFirst(app, args); err != nil {
			return printError(stderr, err)
		}
		ctx = context.WithValue(ctx, givenKey{}, given)
	}
	return printError(stderr, app.RunContext(ctx, args))
}

// onSignals cancels the run at the first signal on sigs; a second one
// exits at once, with the shell's code for death by that signal.
func onSignals(sigs <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func(int)) {
	<-sigs
	cancel()
	fmt.Fprintln(stderr, "rsgen: interrupted: stopping cleanly; interrupt again to stop at once")
	s := <-sigs
	fmt.Fprintln(stderr, "rsgen: error: interrupted again: stopped at once, as if killed; the next build removes the staging directory left behind")
	code := exitInterrupted
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	exit(code)
}

// manCommand prints the manual page rsgen.1, which the release archives hold.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the manual page rsgen.1 (roff)",
		Hidden: true,
		Action: noArgs(func(c *cli.Context) error {
			page, err := c.App.ToManWithSection(1)
			if err == nil {
				_, err = fmt.Fprint(c.App.Writer, page)
			}
			return err
		}),
	}
}

// withHelp returns cmd with urfave/cli's help followed by what it has no
// place for: the exit codes and the examples (a comment, then commands).
func withHelp(cmd *cli.Command, exitCodes string, examples ...string) *cli.Command {
	tail := ""
	if exitCodes != "" {
		tail += "\nEXIT CODES:\n" + exitCodes + "\n"
	}
	if len(examples) > 0 {
		tail += "\nEXAMPLES:\n   " + strings.ReplaceAll(strings.Join(examples, "\n\n"), "\n", "\n   ") + "\n"
	}
	cmd.CustomHelpTemplate = cli.CommandHelpTemplate + strings.ReplaceAll(tail, "\n   \n", "\n\n")
	return cmd
}

// describeFlags readies flags for the help and the completion scripts: a
// switch shows no default, and a flag whose value is a path is marked so
// (TakesFile: fish then completes file names for it only).
func describeFlags(flags []cli.Flag) {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.DisableDefaultText = true
		case *cli.StringFlag:
			_, value, _ := strings.Cut(f.Usage, "`") // "`DIR` to write into"
			value, _, _ = strings.Cut(value, "`")
			f.TakesFile = slices.Contains([]string{"FILE", "DIR", "DIR|URL", "SOURCE"}, value)
		}
	}
}

// flagsFirst returns args with the flags of its command moved before its
// arguments, which follow a "--": urfave/cli v2 (Go's flag package) reads
// no flag after the first argument, and has no option to. A flag's value
// is the next word, whatever it is (--jobs -1). With --help the arguments
// are dropped: v2 would take them for commands to help with. given holds
// the (first) names of the command's flags that args give.
func flagsFirst(app *cli.App, args []string) (_ []string, given map[string]bool, _ error) {
	i := 1 // the command: the root takes only switches (--help, --version) before it
	for i < len(args) && isFlag(args[i]) && args[i] != "--" {
		i++
	}
	if i >= len(args) || app.Command(args[i]) == nil {
		return args, nil, nil
	}
	cmd := app.Command(args[i])
	out, rest := slices.Clone(args[:i+1]), []string{}
	given = map[string]bool{}
	help := false
	for k := i + 1; k < len(args); k++ {
		w := args[k]
		if isFlag(w) && w != "--" {
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f := flagOf(cmd, name); f != nil {
				given[f.Names()[0]] = true
			}
		}
		switch {
		case w == "--":
			rest = append(rest, args[k+1:]...)
			k = len(args)
		case !isFlag(w):
			rest = append(rest, w)
		case strings.Contains(w, "=") || !takesValue(cmd, strings.TrimLeft(w, "-")):
			out = append(out, w)
			help = help || w == "-h" || w == "--help" || w == "-help"
		case k+1 == len(args): // moved first, it would take an argument for its value
			return nil, nil, usageErr("see 'rsgen "+cmd.Name+" --help'", "%s needs a value", w)
		default:
			out = append(out, w, args[k+1])
			k++
		}
	}
	if len(rest) > 0 && !help {
		out = append(append(out, "--"), rest...)
	}
	return out, given, nil
}

// givenKey is the key of the context value of run: the flags flagsFirst
// found on the command line. urfave/cli v2's IsSet is true of a flag its
// environment variable sets too, and has no way to tell them apart.
type givenKey struct{}

// onCommandLine reports whether the command line gives the flag name.
func onCommandLine(c *cli.Context, name string) bool {
	given, _ := c.Context.Value(givenKey{}).(map[string]bool)
	return given[name]
}

func isFlag(word string) bool {
	return len(word) > 1 && word[0] == '-'
}

func takesValue(cmd *cli.Command, name string) bool {
	f := flagOf(cmd, name)
	_, isSwitch := f.(*cli.BoolFlag)
	return f != nil && !isSwitch // not unknown, or --help
}

func flagOf(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}
