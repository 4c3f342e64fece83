export function DeploymentPage() {
  return (
    <main className="page">
      <h1>Deployment</h1>
    </main>
  );
}
