import { Component, type ReactNode } from "react";

interface State {
  error: Error | null;
}

/** If a draft cannot be drawn, say so and point to the way out instead of showing a blank page. */
export class DesignerErrorBoundary extends Component<{ children: ReactNode; workflowId: number }, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  render() {
    if (!this.state.error) return this.props.children;
    return (
      <main className="page">
        <section className="card" role="alert">
          <h2>This draft cannot be shown in the designer</h2>
          <p className="error">{this.state.error.message}</p>
          <p>
            Download it with <a href={`/api/workflows/${this.props.workflowId}/export/`}>Export JSON</a>, fix it, and import it
            again, or restore a published version from the API.
          </p>
        </section>
      </main>
    );
  }
}
