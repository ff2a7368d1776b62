import { Alert, Button, Group, Text } from '@mantine/core';
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** What failed, for the message: "This page", "The node's settings". */
  what: string;
  /** What the person keeps, said under the error ("Your graph is kept."). */
  kept?: string;
  /** When this changes (the page's path, the selected node), a shown error goes and the children render again. */
  resetKey?: string;
  children: ReactNode;
}

/**
 * Catches an error thrown while rendering what it wraps and shows it in an alert with **Try again**
 * (renders the children anew) instead of the whole console going blank (docs/console.md "When a page
 * fails"). React offers error boundaries only as class components; this is the one class in the
 * console. The state of components above the boundary (a builder's unsaved graph) is untouched.
 */
export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidUpdate(previous: Props) {
    if (this.state.error && previous.resetKey !== this.props.resetKey) this.setState({ error: null });
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`${this.props.what} failed to render`, error, info.componentStack);
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <Alert
        color="red"
        title={`${this.props.what} hit an error`}
        role="alert"
        mb="md"
        data-testid="render-error"
      >
        <Text size="sm">{error.message}</Text>
        {this.props.kept ? <Text size="sm">{this.props.kept}</Text> : null}
        <Group mt="xs" gap="xs">
          <Button size="xs" variant="default" onClick={() => this.setState({ error: null })}>
            Try again
          </Button>
        </Group>
      </Alert>
    );
  }
}
