package stage

// Check runs the checks of Publish that change nothing in the output: the
// documents directory holds only what rsgen wrote, and its snapshot is not
// newer than the one staged. A dry run, which publishes nothing, fails
// where Publish would.
func (s *Stage) Check() error {
	prev, err := checkOwned(s.out)
	if err != nil {
		return err
	}
	return checkNotOlder(prev, s.at)
}
