import type React from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./styles.css";
import { DesignerPage } from "./pages/DesignerPage";
import { AnnotatePage } from "./pages/AnnotatePage";
import { ComparePage } from "./pages/ComparePage";
import { DatasetPage } from "./pages/DatasetPage";
import { DatasetsPage } from "./pages/DatasetsPage";
import { DeploymentPage } from "./pages/DeploymentPage";
import { DeploymentsPage } from "./pages/DeploymentsPage";
import { FeedbackPage } from "./pages/FeedbackPage";
import { HomePage } from "./pages/HomePage";
import { MembersPage } from "./pages/MembersPage";
import { ReviewPage } from "./pages/ReviewPage";
import { RunPage } from "./pages/RunPage";
import { RunsPage } from "./pages/RunsPage";
import { WorkflowsPage } from "./pages/WorkflowsPage";
import { createQueryClient } from "./queryClient";

// Each Django page renders <div id="root" data-page="NAME"> and this bundle mounts the matching page.
const pages: Record<string, () => React.JSX.Element> = {
  home: HomePage,
  workflows: WorkflowsPage,
  designer: DesignerPage,
  runs: RunsPage,
  run: RunPage,
  compare: ComparePage,
  deployments: DeploymentsPage,
  deployment: DeploymentPage,
  datasets: DatasetsPage,
  dataset: DatasetPage,
  review: ReviewPage,
  annotate: AnnotatePage,
  feedback: FeedbackPage,
  members: MembersPage,
};

const root = document.getElementById("root");
if (root) {
  const Page = pages[root.dataset.page ?? ""];
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={createQueryClient()}>{Page ? <Page /> : <p>Unknown page.</p>}</QueryClientProvider>
    </StrictMode>,
  );
}
