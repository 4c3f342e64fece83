export function AnnotatePage() {
  return (
    <main className="page">
      <h1>Annotate</h1>
    </main>
  );
}
