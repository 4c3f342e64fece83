export function ReviewPage() {
  return (
    <main className="page">
      <h1>Decision review</h1>
    </main>
  );
}
