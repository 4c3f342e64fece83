export function DeploymentsPage() {
  return (
    <main className="page">
      <h1>Deployments</h1>
    </main>
  );
}
