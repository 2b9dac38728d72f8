package experiment

import (
	"fmt"
	"strings"
)

// Task returns the configuration's task named name ("SLIA/lastname"): its
// grammar and prompt under TaskRoot. A name that is not one of TaskList's
// is an error.
func (c *Config) Task(name string) (TaskFiles, error) {
	tasks, err := c.TaskList()
	if err != nil {
		return TaskFiles{}, err
	}
	names := make([]string, len(tasks))
	for i, t := range tasks {
		if t.Name == name {
			return t, nil
		}
		names[i] = t.Name
	}
	return TaskFiles{}, fmt.Errorf("experiment %s has no task %q (tasks: %s)", c.Name, name, strings.Join(names, ", "))
}
